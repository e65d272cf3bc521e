import Foundation
import Postgres

/// Applies a directory of migrations: tracked in a ledger with checksums, serialised by an
/// advisory lock, one transaction per migration (ledger row included), the stand-in first.
public struct Migrator {
    public struct Options: Sendable {
        /// Install the Supabase stand-in where auth/storage are missing.
        public var standIn = true
        public var dryRun = false
        /// Go on although an applied file changed (the change is not applied).
        public var allowChanged = false
        /// Seconds to wait for another apply to finish.
        public var lockTimeout: Double = 120
        /// `lock_timeout` inside migrations, so DDL never queues behind long transactions for long.
        public var ddlLockTimeout: Double = 5
        /// `statement_timeout` inside migrations.
        public var statementTimeout: Double = 600
        /// Seed files run after the migrations, as `supabase db reset` runs `supabase/seed.sql`;
        /// each runs once per database (tracked in `rlskit.seeds`).
        public var seeds: [SQLFile] = []
        /// The grants regime to model (a throwaway database's); nil leaves default privileges alone.
        public var grants: GrantsRegime?
        /// Buckets to create after the seeds (`config.toml`'s `[storage.buckets.*]`).
        public var buckets: [SupabaseConfig.Bucket] = []
        /// A throwaway server's `postgres` (not a superuser, as on hosted Supabase): the project's
        /// migrations and seeds run through it, so what fails there fails here; the stand-in,
        /// the ledger and the platform's grants go through the target, its admin.
        public var projectConnection: ConnectionString?
        /// Apply only the first `limit` files (a template database's prefix: `KeptServer`).
        public var limit: Int?
        /// The database is a kept server's clone, which got the platform's grants with the
        /// stand-in before it was saved: they are not run again.
        public var platformGrantsInstalled = false
        public init() {}
    }

    public enum Status: String, Sendable {
        case applied, pending, changed
    }

    public struct PlanEntry: Sendable {
        public var file: SQLFile
        public var status: Status
    }

    public struct Result: Sendable {
        public var standIn: StandIn.Report?
        public var plan: [PlanEntry]
        /// Applied now, with milliseconds each.
        public var applied: [(name: String, milliseconds: Int)]
        /// Ledger versions with no file in the source.
        public var unknownVersions: [String]
        /// `.sql` files in the directory that are not named as migrations, not applied.
        public var skipped: [String] = []
        /// Seed files run now.
        public var seeded: [String] = []
        /// Buckets created or updated from `config.toml`.
        public var buckets: [String] = []
        /// The server's WARNINGs raised by migrations and seeds, as `warning: file:line: message`.
        public var warnings: [String] = []
    }

    /// Applies `source` to the database at `target` (stand-in first, unless `options` say not).
    public static func run(
        _ source: MigrationSource, options: Options = Options(), on target: ConnectionString,
        log: @escaping (String) -> Void = { _ in }
    ) throws -> Result {
        let conn = try PostgresConnection(target)
        defer { conn.close() }
        let project = try options.projectConnection.map { try PostgresConnection($0) }
        defer { project?.close() }
        return try Migrator(conn, source: source, options: options, log: log, project: project).run()
    }

    let conn: PostgresConnection
    /// Where the project's own SQL runs: `conn`, or the throwaway server's `postgres`.
    let project: PostgresConnection
    var separate: Bool { project !== conn }
    let source: MigrationSource
    let options: Options
    let log: (String) -> Void

    init(
        _ conn: PostgresConnection, source: MigrationSource, options: Options = Options(),
        log: @escaping (String) -> Void = { _ in }, project: PostgresConnection? = nil
    ) {
        self.conn = conn
        self.project = project ?? conn
        self.source = source
        self.options = options
        self.log = log
    }

    func run() throws -> Result {
        var trace = StepTrace("apply")
        let (all, skipped) = try source.loadSkipping()
        let files = options.limit.map { Array(all.prefix($0)) } ?? all
        for name in skipped {
            log("skipped \(name): not named <digits>_<name>.sql, so not a migration (the Supabase CLI skips it too)")
        }
        // The server lexes each file with its standard_conforming_strings; so do we.
        var strings = project.parameterStatus("standard_conforming_strings") != "off"
        let vectorStandIn = try VectorIndexOptions.serverHasStandIn(conn, files: all)
        var prepared = try files.map {
            try Prepared($0, standardConformingStrings: strings, vectorStandIn: vectorStandIn)
        }
        try Ledger.lock(conn, timeout: options.lockTimeout)
        defer { Ledger.unlock(conn) }
        trace.step("read \(files.count) files, locked the ledger")
        var standIn: StandIn.Report?
        if options.standIn {
            if options.dryRun {
                let d = try StandIn.detect(conn)
                func word(_ s: StandIn.State) -> String {
                    s == .absent
                        ? "missing, would be installed" : s == .standIn ? "stand-in present" : "real schema, left alone"
                }
                log(
                    d.isSupabase
                        ? "stand-in: Supabase schemas found, nothing to install"
                        : "stand-in: auth \(word(d.auth)); storage \(word(d.storage))")
            } else {
                // The sandbox lets rlskit's superuser session write the stand-in's tables only while it installs them.
                if separate { try conn.query("select set_config('rlskit_sandbox.admin_writes', 'on', false)") }
                let r = try StandIn.install(conn)
                for line in r.lines { log(line) }
                standIn = r
            }
        }
        trace.step("stand-in")
        if separate, !options.dryRun, !options.platformGrantsInstalled { try PlatformGrants.install(conn) }
        if separate { try conn.query("select set_config('rlskit_sandbox.admin_writes', 'off', false)") }
        trace.step("platform grants")
        let applied = try Ledger.applied(conn)
        let byVersion = Dictionary(applied.map { ($0.version, $0) }, uniquingKeysWith: { a, _ in a })
        let plan = files.map { f -> PlanEntry in
            guard let entry = byVersion[f.version] else { return PlanEntry(file: f, status: .pending) }
            return PlanEntry(file: f, status: entry.checksum == f.checksum ? .applied : .changed)
        }
        let known = Set(files.map(\.version))
        let unknown = applied.map(\.version).filter { !known.contains($0) }
        var result = Result(standIn: standIn, plan: plan, applied: [], unknownVersions: unknown, skipped: skipped)
        let changed = plan.filter { $0.status == .changed }
        if options.dryRun {
            log("plan (\(source)):")
            for e in plan {
                log("  \(e.status.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(e.file.name)")
            }
            for v in unknown { log("  unknown  \(v) (in the ledger, no file)") }
        }
        if files.isEmpty { log("no *.sql files in \(source)") }
        if let first = changed.first, !options.allowChanged {
            let more = changed.count > 1 ? "; \(changed.count - 1) more changed" : ""
            throw ConfigurationError(
                "\(first.file.path): changed since it was applied (checksum \(first.file.checksum.prefix(12)) ≠ \(byVersion[first.file.version]!.checksum.prefix(12))); restore it, or pass --allow-changed to go on without re-applying it\(more)"
            )
        }
        if options.dryRun { return result }
        for e in changed {
            log("warning: \(e.file.name) changed since it was applied; not re-applied (--allow-changed)")
        }
        // Each file starts from a clean session, as the Supabase CLI runs RESET ALL before each:
        // one file's search_path or set_config must not reach the next, nor rlskit's own queries.
        defer { _ = try? project.query("reset all") }
        // A database cloned from a template holds the regime's defaults as of its last file.
        let lastApplied = plan.last { $0.status != .pending }?.file.version
        var automatic = lastApplied.map { options.grants?.automatic(at: $0) ?? false } ?? false
        for (k, entry) in plan.enumerated() where entry.status == .pending {
            try project.query("reset all")
            if let grants = options.grants, grants.automatic(at: entry.file.version) != automatic {
                automatic.toggle()
                try GrantsRegime.setDefaults(conn, automatic: automatic)
            }
            // An earlier migration may have changed the setting for the rest of the session.
            if (project.parameterStatus("standard_conforming_strings") != "off") != strings {
                strings.toggle()
                prepared = try files.map {
                    try Prepared($0, standardConformingStrings: strings, vectorStandIn: vectorStandIn)
                }
            }
            if separate, options.standIn, StandIn.createsWebhooksSchema(files[k].contents) {
                StandIn.yieldWebhooksSchema(conn)
            }
            let started = Date()
            do { result.warnings += try apply(prepared[k]) } catch var e as MigrationError {
                e.serverMajor = conn.serverVersion / 10000
                e.asPlatformPostgres = separate
                e.summary = Self.stopped(
                    at: e.location, kept: prepared[k].outsideTransaction,
                    applied: plan[..<k].filter { $0.status == .pending }.map { Self.fileName($0.file) },
                    already: plan.count { $0.status != .pending },
                    notApplied: plan[k...].filter { $0.status == .pending }.map { Self.fileName($0.file) })
                throw e
            }
            let ms = Int(Date().timeIntervalSince(started) * 1000)
            result.applied.append((entry.file.name, ms))
            log("applied \(entry.file.name) (\(ms) ms)")
        }
        trace.step("\(result.applied.count) migrations")
        result.seeded = try seed(strings: strings, warnings: &result.warnings)
        trace.step("seeds")
        // As the Storage API creates them (the CLI goes through it), never as rlskit's superuser.
        result.buckets = try ConfigBuckets.create(
            separate ? conn : project, options.buckets, as: separate ? "supabase_storage_admin" : nil)
        let already = plan.count { $0.status != .pending }
        log(
            result.applied.isEmpty
                ? "nothing to apply: \(already) migration\(already == 1 ? "" : "s") already applied"
                : "\(result.applied.count) applied, \(already) already applied")
        return result
    }

    static func fileName(_ f: SQLFile) -> String { (f.path as NSString).lastPathComponent }

    /// What a stopped run did: applied before the failure, where and why it stopped, what is left.
    static func stopped(
        at location: SourceLocation, kept: Bool, applied: [String], already: Int, notApplied: [String]
    ) -> String {
        let file = (location.file as NSString).lastPathComponent
        var lines = [
            "apply stopped at \(file) line \(location.line): "
                + (kept
                    ? "it runs outside a transaction (rlskit:no-transaction), so its statements before line \(location.line) were kept"
                    : "that file was rolled back, nothing of it is kept")
        ]
        lines.append(
            "  applied in this run: " + (applied.isEmpty ? "none" : applied.joined(separator: ", "))
                + (already > 0 ? " (and \(already) applied before)" : ""))
        lines.append("  not applied: " + notApplied.joined(separator: ", "))
        lines.append("  fix \(file), then run again")
        return lines.joined(separator: "\n")
    }

    /// Runs the seed files not run before, each like a migration (clean session, one
    /// transaction) and recorded in `rlskit.seeds`; a seed changed since it ran is not re-run.
    func seed(strings: Bool, warnings: inout [String]) throws -> [String] {
        guard !options.seeds.isEmpty else { return [] }
        let create = """
            create table if not exists rlskit.seeds (
              path text primary key, checksum text not null, applied_at timestamptz not null default now())
            """
        let done: [String: String] =
            try conn.query("select to_regclass('rlskit.seeds') is not null as e").rows[0].decode("e")
            ? Dictionary(
                uniqueKeysWithValues: try conn.query("select path, checksum from rlskit.seeds").rows.map {
                    (try $0.decode("path") as String, try $0.decode("checksum") as String)
                }) : [:]
        var ran: [String] = []
        for file in options.seeds {
            if let sum = done[file.path] {
                if sum != file.checksum { log("warning: seed \(file.path) changed since it ran; not re-run") }
                continue
            }
            try project.query("reset all")
            let p = try Prepared(file, standardConformingStrings: strings)
            let started = Date()
            if separate { try PlatformGrants.seedsTable(conn, create) }
            try project.transaction { c in
                try Ledger.ensure(c)
                if !separate { _ = try c.runScript(create) }
                let guarded = try MigrationGuard.start(c, inTransaction: true)
                do { warnings += warned(try c.runScript(p.text).notices, file, p.statements) } catch let e
                    as ScriptError
                {
                    var m = MigrationError(file: file, script: e, sent: p.statements)
                    m.asPlatformPostgres = separate
                    throw m
                }
                try guarded.check(c, file, p.statements)
                try c.query("insert into rlskit.seeds (path, checksum) values ($1, $2)", [file.path, file.checksum])
            }
            ran.append(file.path)
            log("seeded \(file.path) (\(Int(Date().timeIntervalSince(started) * 1000)) ms)")
        }
        return ran
    }

    func timeouts() -> [any PostgresEncodable] {
        ["\(Int(options.ddlLockTimeout * 1000))ms", "\(Int(options.statementTimeout * 1000))ms"]
    }

    /// Applies one file; returns the server's warnings it raised.
    func apply(_ p: Prepared) throws -> [String] {
        let f = p.file
        var warnings: [String] = []
        let record = "insert into rlskit.migrations (version, name, checksum, duration_ms) values ($1, $2, $3, $4)"
        let started = Date()
        if p.outsideTransaction {
            try project.query(
                "select set_config('lock_timeout', $1, false), set_config('statement_timeout', $2, false)", timeouts())
            defer {
                _ = try? project.query("reset lock_timeout")
                _ = try? project.query("reset statement_timeout")
            }
            try Ledger.ensure(project)
            let guarded = try MigrationGuard.start(project, inTransaction: false)
            for st in p.statements {
                do { warnings += warned(try project.runScript(st.text).notices, f, [st]) } catch {
                    throw MigrationError(file: f, error: error.error, statement: st)
                }
            }
            try guarded.check(project, f, p.statements)
            try project.query(record, [f.version, f.name, f.checksum, Int(Date().timeIntervalSince(started) * 1000)])
            return warnings
        }
        try project.transaction { c in
            try Ledger.ensure(c)
            try c.query(
                "select set_config('lock_timeout', $1, true), set_config('statement_timeout', $2, true)", timeouts())
            let guarded = try MigrationGuard.start(c, inTransaction: true)
            do { warnings += warned(try c.runScript(p.text).notices, f, p.statements) } catch let e as ScriptError {
                throw MigrationError(file: f, script: e, sent: p.statements)
            }
            // Whatever slipped past the checks, the ledger row must share the migration's fate.
            try guarded.check(c, f, p.statements)
            try c.query(record, [f.version, f.name, f.checksum, Int(Date().timeIntervalSince(started) * 1000)])
        }
        return warnings
    }

    /// The server's WARNINGs as `warning: file:line: message`, each also logged. NOTICEs
    /// ("already exists, skipping" and the like) stay quiet: they are routine in migrations.
    /// libpq may read a statement's notices before handing over the previous result, so a
    /// notice counted at statement k came from k or k + 1: the line is given only when that
    /// is one statement (the last), never a guess.
    /// Warnings alike but for quoted names (a REVOKE on a table warns once per column) are one line.
    func warned(_ notices: [Notice], _ file: SQLFile, _ statements: [SQLStatement]) -> [String] {
        var alike: [(key: String, text: String, count: Int)] = []
        for n in notices where n.severity == "WARNING" {
            let line = n.statement == statements.count - 1 ? statements.last?.line : nil
            let text = "warning: \(file.path)" + (line.map { ":\($0)" } ?? "") + ": " + n.message
            let parts = text.split(separator: "\"", omittingEmptySubsequences: false)
            let key = parts.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: "\"\"")
            if let i = alike.firstIndex(where: { $0.key == key }) {
                alike[i].count += 1
            } else {
                alike.append((key, text, 1))
            }
        }
        return alike.map {
            let text = $0.text + ($0.count > 1 ? " (and \($0.count - 1) more like it)" : "")
            log(text)
            return text
        }
    }

    /// A file checked and made ready to send: psql meta-commands refused; each BEGIN … COMMIT
    /// block (around the whole file, or several inside it, as Supabase's own snippets write
    /// them) has its BEGIN and COMMIT blanked out (same length, so error positions stay true),
    /// since the file runs in rlskit's one transaction; other transaction control refused.
    struct Prepared {
        let file: SQLFile
        let text: String
        /// The statements that will produce results, in order.
        let statements: [SQLStatement]
        let outsideTransaction: Bool

        init(_ file: SQLFile, standardConformingStrings: Bool = true, vectorStandIn: Bool = false) throws {
            self.file = file
            outsideTransaction = file.runsOutsideTransaction
            var all = SQLScanner.statements(in: file.contents, standardConformingStrings: standardConformingStrings)
            if let meta = all.first(where: { $0.kind == .meta }) {
                throw ConfigurationError(
                    "\(file.path):\(meta.line): psql meta-command '\(meta.text.prefix(20))' is not SQL; rlskit apply runs plain SQL"
                )
            }
            var blank: [SQLStatement] = []
            if !outsideTransaction {
                blank = try Self.transactionBlocks(all, file)
                let offsets = Set(blank.map(\.offset))
                all = all.filter { !offsets.contains($0.offset) }
            }
            var scalars = Array(file.contents.unicodeScalars)
            for b in blank {
                for k in b.offset..<(b.offset + b.text.unicodeScalars.count) where scalars[k] != "\n" {
                    scalars[k] = " "
                }
            }
            if vectorStandIn { all = VectorIndexOptions.blank(all, in: &scalars) }
            statements = all
            text = String(String.UnicodeScalarView(scalars))
        }

        /// The BEGIN and COMMIT statements of balanced blocks; a stray COMMIT, a ROLLBACK, a
        /// nested or unclosed BEGIN are refused with their line.
        static func transactionBlocks(_ all: [SQLStatement], _ file: SQLFile) throws -> [SQLStatement] {
            func refuse(_ s: SQLStatement, _ why: String) -> ConfigurationError {
                ConfigurationError(
                    "\(file.path):\(s.line): '\(s.text.prefix(20))' \(why); remove it, or add '-- rlskit:no-transaction' as the first line"
                )
            }
            let control = "controls the transaction, but rlskit runs each migration in one transaction"
            var open: SQLStatement?
            var blocks: [SQLStatement] = []
            for s in all {
                if isBegin(s) {
                    if open != nil { throw refuse(s, "opens a transaction inside an open BEGIN block") }
                    open = s
                    blocks.append(s)
                } else if isCommit(s) {
                    guard open != nil else { throw refuse(s, control) }
                    open = nil
                    blocks.append(s)
                } else if isRollback(s) {
                    throw refuse(s, control)
                }
            }
            if let open { throw refuse(open, "opens a transaction block the file never commits") }
            return blocks
        }

        /// The first two keywords, comments and punctuation aside (`commit/* x */` is `commit`).
        static func words(_ s: SQLStatement) -> [String] {
            SQLScanner.keywords(s.text, count: 3)
        }
        static func isBegin(_ s: SQLStatement) -> Bool {
            let w = words(s)
            return w.first == "begin" || (w.first == "start" && w.dropFirst().first == "transaction")
        }
        static func isCommit(_ s: SQLStatement) -> Bool {
            let w = words(s).first
            return w == "commit" || w == "end"
        }
        static func isRollback(_ s: SQLStatement) -> Bool {
            let w = words(s)
            let rest = w.dropFirst().filter { $0 != "work" && $0 != "transaction" }
            return (w.first == "rollback" && rest.first != "to" && rest.first != "prepared") || w.first == "abort"
        }
    }
}
