import Foundation
import Postgres

/// What the server has, found once per run.
struct PgTAPServerInfo: Sendable, Equatable {
    /// pgTAP is installed in this database (else each file creates it in its transaction).
    public var pgtapInstalled: Bool
    /// The server could install it (`pg_available_extensions`).
    public var pgtapAvailable: Bool
    /// A copy of supabase-test-helpers is installed already: then it is used as is.
    public var helpersInstalled: Bool
    public var majorVersion: Int

    public static func probe(_ conn: PostgresConnection) throws -> PgTAPServerInfo {
        let row = try conn.query(
            """
            select exists (select 1 from pg_extension where extname = 'pgtap') as installed,
                   exists (select 1 from pg_available_extensions where name = 'pgtap') as available,
                   to_regprocedure($1) is not null as helpers,
                   current_setting('server_version_num')::int / 10000 as major
            """, [SupabaseTestHelpers.marker]
        ).rows[0]
        return PgTAPServerInfo(
            pgtapInstalled: try row.decode("installed"), pgtapAvailable: try row.decode("available"),
            helpersInstalled: try row.decode("helpers"), majorVersion: try row.decode("major"))
    }

    /// Where pgTAP cannot be created at all: one line naming the package.
    public var missingPackage: String? {
        pgtapInstalled || pgtapAvailable ? nil : "postgresql-\(majorVersion)-pgtap"
    }
}

/// Runs pgTAP files over one connection, each inside a transaction that is always rolled
/// back, statement by statement as psql sends them (with ON_ERROR_STOP, as pg_prove runs it).
final class PgTAPSession {
    let conn: PostgresConnection
    let info: PgTAPServerInfo
    static let savepoint = "rlskit_pgtap_file"

    public init(_ conn: PostgresConnection, info: PgTAPServerInfo) {
        self.conn = conn
        self.info = info
    }

    /// Runs one file. Throws only when the connection is lost (a `.connection` error);
    /// everything else is in the result.
    public func run(_ script: PsqlScript) throws -> PgTAPFileResult {
        do { return try runFile(script) } catch {
            guard conn.isAlive else {
                let m = ((error as? PostgresError)?.message ?? "\(error)")
                    .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(
                        separator: " ")
                throw PostgresError(
                    kind: .connection, message: "lost the connection while running \(script.file): \(m)",
                    sqlState: "08006")
            }
            throw error
        }
    }

    func runFile(_ script: PsqlScript) throws -> PgTAPFileResult {
        var result = PgTAPFileResult(file: script.file)
        guard script.problems.isEmpty else {
            result.malformed = script.problems
            return result
        }
        let started = Date()
        defer { result.duration = Date().timeIntervalSince(started) }
        var lines: [TAPLine] = []
        var complete = true
        let createsPgTAP = !info.pgtapInstalled
        let needsHelpers = script.usesHelpers && !info.helpersInstalled
        do {
            var setup = "BEGIN;"
            if createsPgTAP { setup += "CREATE EXTENSION IF NOT EXISTS pgtap;" }
            if needsHelpers { setup += SupabaseTestHelpers.sessionSQL(freezeTime: script.usesFreezeTime) + ";" }
            setup += "SAVEPOINT \(Self.savepoint)"
            do { _ = try conn.runScript(setup) } catch {
                if error.error.isConnectionFailure || !conn.isAlive { throw error.error }
                result.sqlError = PgTAPSQLError(
                    message: "preparing the file failed: " + error.error.description,
                    location: SourceLocation(file: script.file, line: 1), sql: nil)
                complete = false
            }
            _ = conn.takeNotices()
            if complete {
                complete = try runSteps(
                    script.steps, createdPgTAP: createsPgTAP, helpers: needsHelpers, into: &lines, result: &result)
            }
        } catch {
            _ = try? conn.query("ROLLBACK")
            throw error
        }
        // Close what the file opened, then reset the session as a new psql would find it.
        try conn.query("ROLLBACK")
        try conn.query("DISCARD ALL")
        result.summary = TAPParser.parse(lines, complete: complete)
        return result
    }

    /// Runs the steps until the end, `\q` or the first error; false when stopped by an error.
    func runSteps(
        _ steps: [PsqlStep], createdPgTAP: Bool, helpers: Bool, into lines: inout [TAPLine],
        result: inout PgTAPFileResult
    ) throws -> Bool {
        // The last statement of the file's own that released or rolled back to a savepoint.
        var released: SourceLocation?
        for step in steps {
            switch step.kind {
            case .quit:
                return true
            case .echo(let text):
                // TAP lines count, as they do under pg_prove; other text becomes a diagnostic.
                for l in text.split(separator: "\n", omittingEmptySubsequences: false) {
                    let tap = ["ok", "not ok", "1..", "Bail out!", "#"].contains { l.hasPrefix($0) }
                    lines.append(TAPLine(tap ? String(l) : "# " + l, location: step.location))
                }
            case .sql(let written):
                let rewrite = helpers ? HelperRewrite(written) : nil
                let sql = rewrite?.text ?? written
                let kind = StatementKind.of(sql)
                if kind == .other, Self.touchesSavepoints(sql) { released = step.location }
                switch kind {
                case .begin, .commit, .rollback:
                    // BEGIN/COMMIT: what psql would have committed by now becomes the point
                    // ROLLBACK returns to. The file may have released that savepoint itself.
                    do {
                        if kind == .rollback {
                            try conn.query("ROLLBACK TO SAVEPOINT \(Self.savepoint)")
                        } else {
                            _ = try conn.runScript("RELEASE SAVEPOINT \(Self.savepoint); SAVEPOINT \(Self.savepoint)")
                        }
                    } catch {
                        let e = (error as? ScriptError)?.error ?? error as? PostgresError
                        if e?.kind != .server || !conn.isAlive { throw e ?? error }
                        let by =
                            released.map {
                                " (the file's statement at line \($0.line) released or rolled back past it)"
                            } ?? ""
                        result.malformed.append(
                            ScriptProblem(
                                step.location,
                                "'\(SQLScanner.keywords(sql, count: 1).first ?? "")' needs rlskit's savepoint \(Self.savepoint), "
                                    + "which no longer exists\(by): leave that savepoint to rlskit; the file was rolled back"
                            ))
                        return false
                    }
                    continue
                case .installHelpers:
                    continue
                case .createPgTAP where createdPgTAP:
                    continue
                case .twoPhase:
                    result.sqlError = PgTAPSQLError(
                        message: "two-phase commit statements are not allowed: they would outlive the test run",
                        location: step.location, sql: written)
                    return false
                default:
                    break
                }
                let t0 = Date()
                let output: QueryResult
                do { output = try conn.query(sql) } catch var error as PostgresError {
                    if error.isConnectionFailure || error.kind != .server || !conn.isAlive { throw error }
                    if let rewrite, let p = error.position { error.position = rewrite.originalPosition(p) }
                    result.sqlError = PgTAPSQLError(error, sql: written, at: step.location)
                    return false
                }
                let elapsed = Date().timeIntervalSince(t0)
                for n in conn.takeNotices() {
                    lines.append(TAPLine("# \(n.severity): \(n.message)", location: step.location))
                }
                append(output, at: step.location, duration: elapsed, to: &lines)
                // Whatever the scanner thought of the statement, it must not end our transaction.
                if let problem = Self.transactionProblem(conn, at: step.location) {
                    result.malformed.append(problem)
                    return false
                }
            }
        }
        return true
    }

    /// A problem naming the statement when rlskit's transaction is no longer open after it.
    static func transactionProblem(_ conn: PostgresConnection, at location: SourceLocation) -> ScriptProblem? {
        conn.inTransaction
            ? nil
            : ScriptProblem(
                location,
                "this statement ended rlskit's transaction (transaction control rlskit did not recognise), "
                    + "so what the file did before it may have been committed: check the database and remove the statement"
            )
    }

    static func touchesSavepoints(_ sql: String) -> Bool {
        let w = SQLScanner.keywords(sql, count: 3)
        return w.first == "release" || (w.first == "rollback" && w.contains("to"))
    }

    /// Rows as psql prints them with --no-align --tuples-only: fields joined by '|'.
    func append(_ output: QueryResult, at location: SourceLocation, duration: Double, to lines: inout [TAPLine]) {
        guard !output.rows.isEmpty else { return }
        var texts: [String] = []
        for row in output.rows {
            let text = row.values.map { $0 ?? "" }.joined(separator: "|")
            for l in text.split(separator: "\n", omittingEmptySubsequences: false) { texts.append(String(l)) }
        }
        let tests = texts.count { $0.hasPrefix("ok") || $0.hasPrefix("not ok") }
        let each = tests > 0 ? duration / Double(tests) : 0
        for t in texts { lines.append(TAPLine(t, location: location, duration: each)) }
    }
}
