import Foundation
import Postgres
import Synchronization

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
    /// Which supabase-test-helpers behaviour the built-in `tests.*` functions have.
    public var helpers = PgTAPHelperSet.basejump
    public init(jobs: Int = 1, helpers: PgTAPHelperSet = .basejump) {
        self.jobs = max(1, jobs)
        self.helpers = helpers
    }
}

/// Finds pgTAP files and runs them: the files before the first one that keeps work for the
/// files after it spread over connections, the rest in name order on one connection.
public struct PgTAPRunner: Sendable {
    var connection: ConnectionString
    var jobs: Int
    var helpers: PgTAPHelperSet

    /// Runs `files` (from `discover`) on the database at `target`.
    public static func run(
        _ files: [(path: String, display: String)], options: PgTAPOptions = PgTAPOptions(),
        on target: ConnectionString
    ) throws -> PgTAPRunResult {
        try PgTAPRunner(connection: target, jobs: options.jobs, helpers: options.helpers).run(files)
    }

    init(connection: ConnectionString, jobs: Int = 1, helpers: PgTAPHelperSet = .basejump) {
        self.connection = connection
        self.jobs = max(1, jobs)
        self.helpers = helpers
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
                if name.hasPrefix(".") {
                    walker.skipDescendants()
                    continue
                }
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
        let defined = scripts.reduce(into: Set<String>()) { $0.formUnion($1.definedHelpers) }
        let setup = PgTAPSetup(
            createPgTAP: !info.pgtapInstalled,
            helpersSQL: scripts.contains(where: \.usesHelpers) && !info.helpersInstalled
                ? SupabaseTestHelpers.setupSQL(helpers, skipping: defined) : nil)
        var notes: [String] = []
        if setup.createPgTAP {
            notes.append("pgTAP is not installed in this database: rlskit created it in schema extensions for the run")
        }
        // Files before the first one that keeps work depend on nothing: those spread over the
        // connections. From it on, every file may see what earlier ones kept, so they run in order.
        let firstShared = scripts.firstIndex { $0.firstSharedStep != nil }
        let workers = min(jobs, scripts.count)
        var spread = workers > 1 && setup.isEmpty ? (firstShared ?? scripts.count) : 0
        if spread < 2 { spread = 0 }
        if workers > 1, spread < scripts.count, !setup.isEmpty || !Self.spreadsAfterSetup(scripts, from: spread) {
            let why =
                firstShared.flatMap { scripts[$0].firstSharedStep }.map {
                    "\($0) keeps its work for the files after it, as under pg_prove"
                }
                ?? "rlskit creates pgTAP or the test helpers for the run (install them in the database to run files in parallel)"
            notes.append(
                spread > 0
                    ? "--jobs \(jobs): the \(spread) files before \(scripts[spread].file) ran over \(min(workers, spread)) "
                        + "connections, then files ran one at a time in name order, because \(why)"
                    : "--jobs \(jobs): files ran one at a time in name order, because \(why)")
        }
        let notesAPI = helpers == .basejump && setup.helpersSQL != nil
        // Workers take the next file; a bail-out or a lost connection stops them all.
        var done: [PgTAPFileResult?] = []
        if spread > 0 {
            // No such file keeps anything, so each may run in a transaction of its own.
            let target = connection
            done = try WorkerPool.run(
                spread, workers: min(workers, spread),
                open: { PgTAPSession(try PostgresConnection(target), setup: setup) }
            ) { session, i in
                try session.open()
                let r = try session.run(scripts[i])
                try session.close()
                return (r, r.summary.bailOut != nil)
            }
        }
        let stopped = done.contains { $0 == nil || $0?.summary.bailOut != nil }
        var helped = 0
        if spread < scripts.count, !stopped {
            let session = PgTAPSession(first, setup: setup)
            try session.open()
            var i = spread
            // Files that keep work run here in order; a run of files between them that keep
            // nothing may spread over connections that first replay the files kept so far.
            while i < scripts.count {
                let end =
                    workers > 1 && setup.isEmpty
                    ? (scripts[i...].firstIndex { $0.firstSharedStep != nil } ?? scripts.count) : i
                if end - i >= 2 {
                    let kept = (spread..<i).filter { scripts[$0].firstSharedStep != nil }
                    let part = try spreadAfterSetup(
                        Array(scripts[i..<end]), replaying: kept.map { scripts[$0] }, expecting: kept.map { done[$0] })
                    helped = max(helped, part.helpers)
                    var results = part.results
                    for k in results.indices where results[k] == nil {
                        if results.contains(where: { $0?.summary.bailOut != nil }) { break }
                        results[k] = try session.run(scripts[i + k])
                    }
                    done += results
                    i = end
                } else {
                    done.append(try session.run(scripts[i]))
                    i += 1
                }
                if done.contains(where: { $0?.summary.bailOut != nil }) { break }
            }
            // After the files, so what setup files created counts too.
            if notesAPI { notes += try HelperNotes.apiDifferences(first) }
            try session.close()
        }
        if helped > 0 {
            notes.append(
                "--jobs \(jobs): files that keep their work (setup, teardown) ran in name order on one connection; "
                    + "the files between them ran over \(helped) more connections, each of which first ran the setup "
                    + "files before them again in a transaction of its own")
        } else if workers > 1, setup.isEmpty, spread < scripts.count, Self.spreadsAfterSetup(scripts, from: spread) {
            notes.append(
                "--jobs \(jobs): files after \(scripts[spread].file) ran one at a time in name order: running the files "
                    + "that keep their work again on another connection waited for locks the first connection holds "
                    + "(or gave other results)")
        }
        done += [PgTAPFileResult?](repeating: nil, count: scripts.count - done.count)
        let skipped = done.compactMap { $0 }.filter(\.skippedPreamble).map(\.file)
        if !skipped.isEmpty {
            notes.append(
                "skipped the dbdev install of supabase-test-helpers in \(skipped.joined(separator: ", ")): the helpers are built in"
            )
        }
        var out = PgTAPRunResult(files: done.compactMap { $0 }, notes: notes)
        out.notRun = zip(scripts, done).filter { $0.1 == nil }.map(\.0.file)
        return out
    }

    /// Some run of two files that keep nothing follows a file that keeps its work.
    static func spreadsAfterSetup(_ scripts: [PsqlScript], from start: Int) -> Bool {
        var run = 0
        for s in scripts[start...] {
            run = s.firstSharedStep == nil ? run + 1 : 0
            if run >= 2 { return true }
        }
        return false
    }

    /// Runs `files` (none keeps work) over connections of their own, each of which first runs
    /// the files kept so far again in its rolled-back transaction and takes part only if they
    /// give what they gave the first time. Their locks would wait for the run's session, so a
    /// lock wait gives up (the file is left to the run's session). Nil where no helper ran it.
    func spreadAfterSetup(_ files: [PsqlScript], replaying kept: [PsqlScript], expecting: [PgTAPFileResult?])
        throws -> (results: [PgTAPFileResult?], helpers: Int)
    {
        let target = connection
        let setup = PgTAPSetup()
        let count = HelperCount()
        let results = try WorkerPool.run(
            files.count, workers: min(jobs, files.count),
            openOrSitOut: { () -> PgTAPSession? in
                let session = PgTAPSession(try PostgresConnection(target), setup: setup)
                session.lockTimeout = "1s"
                try session.open()
                for (script, want) in zip(kept, expecting) {
                    let r = try session.run(script)
                    if r.passed != want?.passed || r.summary.tests.count != want?.summary.tests.count
                        || r.sqlError?.sqlState == "55P03"
                    {
                        return nil
                    }
                }
                count.n.withLock { $0 += 1 }
                return session
            }
        ) { session, k -> (result: PgTAPFileResult?, stop: Bool) in
            let r = try session.run(files[k])
            if r.sqlError?.sqlState == "55P03" { return (nil, false) }
            return (r, r.summary.bailOut != nil)
        }
        return (results.map { $0 ?? nil }, count.n.withLock { $0 })
    }
}

/// How many helper connections took part.
final class HelperCount: Sendable {
    let n = Mutex(0)
}
