import Foundation
import Postgres
@_spi(CLI) import RLSKit

/// `--html FILE` of `check`, `test` and `audit`: the self-contained access report.
struct HTMLOutput {
    static let option = OptionSpec.option(
        "html", "FILE", "Write a self-contained HTML report to FILE: who can do what, per table and bucket.")

    let target: OutputTarget

    init(_ args: ParsedArguments) throws { target = try OutputTarget(args.value("html"), option: "html") }
    init(target: OutputTarget) { self.target = target }

    var path: String? { target.path }

    /// Reads the policies (for each cell's "responsible policies") while the database is still up,
    /// and the grants regime when the run did not model one.
    func write(
        command: String, verdict: String, facts: [(String, String)], tests: TestReport, audit: AuditReport?,
        untested: [String] = [], on database: ConnectionString
    ) throws {
        guard target.isFile else { return }
        var policies: [HTMLReport.Policy] = []
        var facts = facts
        if let conn = try? PostgresConnection(database) {
            defer { conn.close() }
            policies = (try? HTMLReport.policies(conn)) ?? []
            if !facts.contains(where: { $0.0 == "grants" }), let g = try? GrantsRegime.observed(conn) {
                facts.append(("grants", g))
            }
        }
        let generated = ISO8601DateFormatter().string(from: Date())
        let report = HTMLReport(
            command: command, verdict: verdict,
            facts: facts + [("generated", generated), ("rlskit", RLSKitVersion.current)], tests: tests, audit: audit,
            policies: policies, untested: untested)
        try target.write(report.render())
    }
}
