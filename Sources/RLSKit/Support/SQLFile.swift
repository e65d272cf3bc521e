import Foundation

/// A SQL file to apply: a migration or a stand-in part.
public struct SQLFile: Sendable, Equatable {
    /// For messages: a path relative to where the user works (or `sql/…` for the built-in copy).
    public var path: String
    /// The file name without `.sql`, e.g. `0001_profiles`.
    public var name: String
    /// The ledger key: the name up to the first underscore (`0001`, `20240101120000`), else the name.
    public var version: String
    public var contents: String
    /// sha256 of the text (without a byte order mark), hex.
    public var checksum: String

    public init(path: String, contents: String) {
        self.path = path
        let file = (path as NSString).lastPathComponent
        name = file.hasSuffix(".sql") ? String(file.dropLast(4)) : file
        version = name.split(separator: "_", maxSplits: 1).first.map(String.init) ?? name
        self.contents = TextFile.withoutBOM(contents)
        checksum = SHA256.hex(Array(self.contents.utf8))
    }

    /// `-- rlskit:no-transaction` in the leading comment lines.
    public var runsOutsideTransaction: Bool {
        for line in TextFile.lines(contents) {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.isEmpty { continue }
            guard t.hasPrefix("--") else { return false }
            if t.dropFirst(2).trimmingCharacters(in: .whitespaces).lowercased() == "rlskit:no-transaction" {
                return true
            }
        }
        return false
    }
}

/// The SQL compiled into the binary by the EmbedSQL build plugin (Plugins/EmbedSQL).
enum BuiltInSQL {
    /// Files under `sql/<folder>/`, in name order.
    static func files(in folder: String) -> [SQLFile] {
        EmbeddedSQL.files
            .filter { $0.path.hasPrefix(folder + "/") && $0.path.hasSuffix(".sql") }
            .map { SQLFile(path: "sql/" + $0.path, contents: $0.contents) }
    }

    /// Every embedded file: path under `sql/` and contents.
    static var all: [(path: String, contents: String)] { EmbeddedSQL.files }
}
