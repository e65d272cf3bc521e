import Foundation
import Postgres
@_spi(CLI) import RLSKit

/// `--html FILE` and `--summary FILE` with several databases: one file per database, FILE with
/// the database's name before its extension (`report.html` → `report.app.html`); two databases
/// of the same name get `-2`, `-3`, … in the order given.
enum PerDatabaseOutput {
    /// File-name-safe database names, one per target, unique.
    static func names(_ targets: [DatabaseTarget]) -> [String] {
        var used: [String: Int] = [:]
        return targets.map { t in
            let raw = (try? t.connection.options()["dbname"]) ?? nil
            let safe = String(
                (raw ?? "database").map { $0.isASCII && ($0.isLetter || $0.isNumber || "_.-".contains($0)) ? $0 : "_" })
            used[safe, default: 0] += 1
            return used[safe]! == 1 ? safe : "\(safe)-\(used[safe]!)"
        }
    }

    /// `path` with `name` inserted before the extension, or at the end when there is none.
    static func path(_ path: String, inserting name: String) -> String {
        let dir = FilePath.parent(path)
        let file = (path as NSString).lastPathComponent
        let ext = (file as NSString).pathExtension
        let stem = ext.isEmpty ? file : String(file.dropLast(ext.count + 1))
        let named = ext.isEmpty ? "\(stem).\(name)" : "\(stem).\(name).\(ext)"
        return dir.isEmpty ? named : (dir as NSString).appendingPathComponent(named)
    }

    /// The per-database files of `--html` and `--summary`, checked before any work, refused
    /// where one is an input or another output.
    struct Files {
        var html: [HTMLOutput?]
        var summary: [OutputTarget?]

        init(_ targets: [DatabaseTarget], html: HTMLOutput, ci: CIOutput, inputs: [String]) throws {
            let names = PerDatabaseOutput.names(targets)
            self.html = try names.map { n in
                try html.path.map {
                    HTMLOutput(target: try OutputTarget(PerDatabaseOutput.path($0, inserting: n), option: "html"))
                }
            }
            summary = try names.map { n in
                try ci.summary.path.map {
                    try OutputTarget(PerDatabaseOutput.path($0, inserting: n), option: "summary")
                }
            }
            try OutputTarget.refuseOverlap(
                self.html.map { ("html", $0?.path) } + summary.map { ("summary", $0?.path) }, inputs: inputs)
        }
    }
}
