import Foundation
import Postgres

/// Everything a pgTAP run produced.
public struct PgTAPRunResult: Sendable {
    /// In file name order; files after a bail-out are missing.
    public var files: [PgTAPFileResult]
    public var notRun: [String] = []
    public var notes: [String] = []

    public var passed: Bool { files.allSatisfy(\.passed) && notRun.isEmpty }
    public var hasMalformed: Bool { files.contains { !$0.malformed.isEmpty } }

    public var report: TestReport {
        var notes = notes
        if !notRun.isEmpty { notes.append("not run after the bail-out: " + notRun.joined(separator: ", ")) }
        return TestReport(outcomes: files.flatMap(\.outcomes), notes: notes)
    }
}

/// How pgTAP files are run.
public struct PgTAPOptions: Sendable {
    /// Connections to spread the files over.
    public var jobs = 1
    public init(jobs: Int = 1) { self.jobs = max(1, jobs) }
}

/// Finds pgTAP files and runs them, one connection per job.
public struct PgTAPRunner: Sendable {
    var connection: ConnectionString
    var jobs: Int

    /// Runs `files` (from `discover`) on the database at `target`.
    public static func run(
        _ files: [(path: String, display: String)], options: PgTAPOptions = PgTAPOptions(),
        on target: ConnectionString
    ) throws -> PgTAPRunResult {
        try PgTAPRunner(connection: target, jobs: options.jobs).run(files)
    }

    init(connection: ConnectionString, jobs: Int = 1) {
        self.connection = connection
        self.jobs = max(1, jobs)
    }

    public static let extensions: Set<String> = ["sql", "pg"]

    /// Files named directly are taken as they are; folders are searched recursively for
    /// `*.sql` and `*.pg`, in name order. Returns (path to read, name to show).
    public static func discover(_ paths: [String]) throws(ConfigurationError) -> [(path: String, display: String)] {
        var out: [(path: String, display: String)] = []
        var seen = Set<String>()
        let fm = FileManager.default
        for given in paths {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: given, isDirectory: &isDir) else {
                throw ConfigurationError("\(given): no such file or directory")
            }
            if !isDir.boolValue {
                if seen.insert(URL(fileURLWithPath: given).standardizedFileURL.path).inserted {
                    out.append((given, given))
                }
                continue
            }
            guard let walker = fm.enumerator(atPath: given) else {
                throw ConfigurationError("\(given): cannot read the folder")
            }
            var found: [String] = []
            while let rel = walker.nextObject() as? String {
                let name = (rel as NSString).lastPathComponent
                if name.hasPrefix(".") { walker.skipDescendants(); continue }
                if extensions.contains((name as NSString).pathExtension.lowercased()) { found.append(rel) }
            }
            let files = found.filter { rel in
                var d: ObjCBool = false
                return fm.fileExists(atPath: (given as NSString).appendingPathComponent(rel), isDirectory: &d)
                    && !d.boolValue
            }
            guard !files.isEmpty else {
                throw ConfigurationError("\(given): no pgTAP files (*.sql, *.pg) in this folder")
            }
            for rel in files.sorted() {
                let path = (given as NSString).appendingPathComponent(rel)
                if seen.insert(URL(fileURLWithPath: path).standardizedFileURL.path).inserted {
                    out.append((path, path))
                }
            }
        }
        return out
    }

    /// Runs the files. Throws a `ConfigurationError` when pgTAP cannot be had, and a
    /// `PostgresError` when the server cannot be reached or goes away.
    func run(_ files: [(path: String, display: String)]) throws -> PgTAPRunResult {
        let scripts = files.map { PsqlScript.load(path: $0.path, display: $0.display) }
        let first = try PostgresConnection(connection)
        let info = try PgTAPServerInfo.probe(first)
        if let package = info.missingPackage {
            throw ConfigurationError(
                "pgTAP is not available on this PostgreSQL \(info.majorVersion) server: install the package \(package) on the database host (or build pgTAP from https://pgtap.org)"
            )
        }
        var notes: [String] = []
        if !info.pgtapInstalled {
            notes.append(
                "pgTAP is not installed in this database: rlskit created it inside each file's transaction"
                    + (jobs > 1
                        ? " (files then wait for each other; `create extension pgtap` once makes parallel runs faster)"
                        : ""))
        }
        // Workers take the next file; a bail-out or a lost connection stops them all.
        let done: [PgTAPFileResult?]
        let step: @Sendable (PgTAPSession, Int) throws -> (result: PgTAPFileResult, stop: Bool) = { session, i in
            let r = try session.run(scripts[i])
            return (r, r.summary.bailOut != nil)
        }
        if min(jobs, scripts.count) <= 1 {
            done = try WorkerPool.serial(scripts.count, on: PgTAPSession(first, info: info), step)
        } else {
            let target = connection
            done = try WorkerPool.run(
                scripts.count, workers: jobs, open: { PgTAPSession(try PostgresConnection(target), info: info) }, step)
        }
        var out = PgTAPRunResult(files: done.compactMap { $0 }, notes: notes)
        out.notRun = zip(scripts, done).filter { $0.1 == nil }.map(\.0.file)
        return out
    }
}
