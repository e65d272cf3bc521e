import Foundation
import Postgres

/// What the server has, found once per run.
struct PgTAPServerInfo: Sendable, Equatable {
    /// pgTAP is installed in this database (else the run creates it in its transaction).
    var pgtapInstalled: Bool
    /// The server could install it (`pg_available_extensions`).
    var pgtapAvailable: Bool
    /// A copy of supabase-test-helpers is installed already: then it is used as is.
    var helpersInstalled: Bool
    var majorVersion: Int

    static func probe(_ conn: PostgresConnection) throws -> PgTAPServerInfo {
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
    var missingPackage: String? {
        pgtapInstalled || pgtapAvailable ? nil : "postgresql-\(majorVersion)-pgtap"
    }
}

/// What a run creates inside its transaction before the first file.
struct PgTAPSetup: Sendable {
    /// pgTAP is missing: create it in schema `extensions`, as Supabase has it.
    var createPgTAP = false
    /// The helpers to create (nil when no file uses them or the database has its own).
    var helpersSQL: String?

    var isEmpty: Bool { !createPgTAP && helpersSQL == nil }

    static let pgtapSQL = """
        create schema if not exists extensions;
        grant usage on schema extensions to public;
        create extension pgtap with schema extensions;
        do $$
        declare
          f regprocedure;
        begin
          -- Whatever default privileges the project set, every role a test switches to may call pgTAP.
          for f in select d.objid::regprocedure from pg_depend d join pg_extension e on e.oid = d.refobjid
                    where e.extname = 'pgtap' and d.classid = 'pg_proc'::regclass and d.deptype = 'e' loop
            execute format('grant execute on function %s to public', f);
          end loop;
        end
        $$
        """
}

/// Runs pgTAP files over one connection as pg_prove runs them, each as if in its own psql
/// session, all inside one transaction of ours that is always rolled back: what a file keeps
/// (work outside its own BEGIN … ROLLBACK, or its COMMIT) is seen by the files after it, and
/// the run leaves nothing. Statement by statement, stopping at the first error (ON_ERROR_STOP).
final class PgTAPSession {
    let conn: PostgresConnection
    let setup: PgTAPSetup
    /// The file's own transaction.
    static let fileSavepoint = "rlskit_pgtap_file"
    /// Before each statement outside it, so an error undoes that statement only, as in autocommit.
    static let statementSavepoint = "rlskit_pgtap_statement"
    /// pgTAP went where the session's search path does not reach: it is appended per file.
    var appendExtensions = false
    /// Settings the helpers and `SET LOCAL` change for one transaction only. Under psql such a
    /// change ends with the statement (autocommit) or the file's COMMIT; inside our transaction
    /// it would not, so their session values are put back then.
    static let localSettings = [
        "role", "request.jwt.claims", "request.jwt.claim.sub", "request.jwt.claim.role", "request.jwt.claim.email",
        "search_path", "tests.frozen_time", "tests.original_search_path",
    ].joined(separator: ",")
    /// Their values as a new session has them (JSON), and as the file's session has them now.
    var freshValues = "{}"
    var sessionValues = "{}"
    /// Set on a session that replayed the setup files beside the run's own: it must never wait
    /// for the run's session, which holds the same work uncommitted and waits for it.
    var lockTimeout: String?

    init(_ conn: PostgresConnection, setup: PgTAPSetup) {
        self.conn = conn
        self.setup = setup
    }

    /// Opens the run's transaction and creates what the files need.
    func open() throws {
        do {
            _ = try conn.runScript("BEGIN")
            if setup.createPgTAP {
                _ = try conn.runScript(PgTAPSetup.pgtapSQL)
                let row = try conn.query("select 'extensions' = any(current_schemas(false)) as reached").rows[0]
                appendExtensions = !(try row.decode("reached", as: Bool.self))
            }
            // Their bodies name pgTAP unqualified, found on each caller's search path, as basejump's do.
            if let sql = setup.helpersSQL { _ = try conn.runScript("SET LOCAL check_function_bodies = off;\n" + sql) }
            try resetSession()
            freshValues = try captureSettings()
        } catch let error as ScriptError {
            if error.error.isConnectionFailure || !conn.isAlive { throw error.error }
            _ = try? conn.query("ROLLBACK")
            throw Self.setupFailed(error.error.description)
        } catch let error as PostgresError {
            if error.isConnectionFailure || !conn.isAlive { throw error }
            _ = try? conn.query("ROLLBACK")
            throw Self.setupFailed(error.description)
        }
        _ = conn.takeNotices()
    }

    /// Rolls the run back and resets the session.
    func close() throws {
        try conn.query("ROLLBACK")
        try conn.query("DISCARD ALL")
    }

    /// The session as a new psql would find it (inside our transaction, so not DISCARD ALL).
    func resetSession(after undo: String = "") throws {
        var sql = """
            RESET SESSION AUTHORIZATION; RESET ROLE; RESET ALL; DEALLOCATE ALL; CLOSE ALL; UNLISTEN *;
            SELECT pg_advisory_unlock_all(); DISCARD TEMP
            """
        if appendExtensions {
            sql += "; SELECT set_config('search_path', current_setting('search_path') || ', extensions', false)"
        }
        if let lockTimeout { sql += "; SET lock_timeout = '\(lockTimeout)'" }
        _ = try conn.runScript(undo.isEmpty ? sql : undo + "; " + sql)
        _ = conn.takeNotices()
    }

    static func setupFailed(_ why: String) -> ConfigurationError {
        ConfigurationError(
            "creating pgTAP and the test helpers for the run failed: \(why) (the connecting role needs to create "
                + "schemas and extensions here, or install pgTAP and supabase-test-helpers in the database once)")
    }

    func captureSettings() throws -> String {
        try conn.query(
            "select jsonb_object_agg(n, coalesce(current_setting(n, true), ''))::text as s from unnest(string_to_array($1, ',')) n",
            [Self.localSettings]
        ).rows[0].decode("s")
    }

    /// Puts the session values back where a transaction-local change outlived its transaction.
    func restoreSettings() throws {
        try conn.query(
            "select count(set_config(key, value, false)) from jsonb_each_text($1::jsonb) where coalesce(current_setting(key, true), '') <> value",
            [sessionValues])
        _ = conn.takeNotices()
    }

    /// Runs one file. Throws only when the connection is lost (a `.connection` error);
    /// everything else is in the result.
    func run(_ script: PsqlScript) throws -> PgTAPFileResult {
        do { return try runFile(script) } catch {
            let e = (error as? ScriptError)?.error ?? error
            guard conn.isAlive else {
                let m = ((e as? PostgresError)?.message ?? "\(e)")
                    .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(
                        separator: " ")
                throw PostgresError(
                    kind: .connection, message: "lost the connection while running \(script.file): \(m)",
                    sqlState: "08006")
            }
            throw e
        }
    }

    /// Where a file is in its own transaction control.
    struct FileState {
        var open = false
        var statementSavepoint = false
        var failedStatement = false
        var skippedPreamble = false
        /// Something done so far outlives the file.
        var kept = false
        var valuesAtBegin = "{}"
        /// The last statement of the file's own that released or rolled back to a savepoint.
        var released: SourceLocation?
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
        var state = FileState()
        sessionValues = freshValues
        let complete = try runSteps(script, state: &state, into: &lines, result: &result)
        result.skippedPreamble = state.skippedPreamble
        result.keptWork = state.kept
        // Undo what psql's exit would undo: an open transaction, or the statement that failed.
        var undo = ""
        if state.open {
            undo = "ROLLBACK TO SAVEPOINT \(Self.fileSavepoint); RELEASE SAVEPOINT \(Self.fileSavepoint)"
        } else if state.statementSavepoint {
            undo =
                (state.failedStatement ? "ROLLBACK TO SAVEPOINT \(Self.statementSavepoint); " : "")
                + "RELEASE SAVEPOINT \(Self.statementSavepoint)"
        }
        do {
            try resetSession(after: undo)
        } catch let error as ScriptError {
            if error.error.isConnectionFailure || !conn.isAlive { throw error.error }
            // The file took our savepoints or transaction away: start the run's transaction afresh.
            if result.malformed.isEmpty { result.malformed.append(savepointProblem(state, at: script.lastLocation)) }
            _ = try? conn.query("ROLLBACK")
            try open()
        }
        result.summary = TAPParser.parse(lines, complete: complete)
        return result
    }

    /// Runs the steps until the end, `\q` or the first error; false when stopped by an error.
    func runSteps(
        _ script: PsqlScript, state: inout FileState, into lines: inout [TAPLine], result: inout PgTAPFileResult
    ) throws -> Bool {
        var resume = 0
        for (i, step) in script.steps.enumerated() where i >= resume {
            // Inside the file's own transaction, a run of plain queries goes in one round trip.
            if state.open, let batch = Self.batch(script, from: i) {
                resume = batch.upperBound
                guard try runBatch(script.steps[batch], into: &lines, result: &result) else {
                    state.failedStatement = true
                    return false
                }
                continue
            }
            switch step.kind {
            case .quit:
                return true
            case .error(let message):
                result.sqlError = PgTAPSQLError(message: message, location: step.location, sql: nil)
                return false
            case .echo(let text):
                // TAP lines count, as they do under pg_prove; other text becomes a diagnostic.
                for l in text.split(separator: "\n", omittingEmptySubsequences: false) {
                    let tap = ["ok", "not ok", "1..", "Bail out!", "#"].contains { l.hasPrefix($0) }
                    lines.append(TAPLine(tap ? String(l) : "# " + l, location: step.location))
                }
            case .sql(let sql):
                let kind = script.kinds[i]
                if kind == .other, Self.touchesSavepoints(script.words[i]) { state.released = step.location }
                var control: String?
                switch kind {
                case .begin:
                    // psql warns of a BEGIN inside a transaction and carries on; so do we.
                    if state.open { continue }
                    control =
                        (state.statementSavepoint ? "RELEASE SAVEPOINT \(Self.statementSavepoint); " : "")
                        + "SAVEPOINT \(Self.fileSavepoint)"
                    state.statementSavepoint = false
                    state.open = true
                    state.valuesAtBegin = sessionValues
                case .commit:
                    if !state.open { continue }
                    control = "RELEASE SAVEPOINT \(Self.fileSavepoint)"
                    state.open = false
                    state.kept = true
                case .rollback:
                    if !state.open { continue }
                    control = "ROLLBACK TO SAVEPOINT \(Self.fileSavepoint); RELEASE SAVEPOINT \(Self.fileSavepoint)"
                    state.open = false
                    sessionValues = state.valuesAtBegin
                case .installHelpers:
                    state.skippedPreamble = true
                    continue
                case .createPgTAP where setup.createPgTAP:
                    continue
                case .twoPhase:
                    result.sqlError = PgTAPSQLError(
                        message: "two-phase commit statements are not allowed: they would outlive the test run",
                        location: step.location, sql: sql)
                    return false
                default:
                    if !state.open {
                        control =
                            state.statementSavepoint
                            ? "RELEASE SAVEPOINT \(Self.statementSavepoint); SAVEPOINT \(Self.statementSavepoint)"
                            : "SAVEPOINT \(Self.statementSavepoint)"
                        state.statementSavepoint = true
                    }
                }
                if let control {
                    do { _ = try conn.runScript(control) } catch {
                        if error.error.kind != .server || !conn.isAlive { throw error.error }
                        result.malformed.append(savepointProblem(state, at: step.location))
                        return false
                    }
                }
                if kind == .commit { try restoreSettings() }
                if kind != .other && kind != .createPgTAP { continue }
                let t0 = Date()
                let output: QueryResult
                do { output = try conn.query(sql) } catch let error as PostgresError {
                    if error.isConnectionFailure || error.kind != .server || !conn.isAlive { throw error }
                    result.sqlError = PgTAPSQLError(error, sql: sql, at: step.location)
                    state.failedStatement = true
                    return false
                }
                let elapsed = Date().timeIntervalSince(t0)
                if !state.open { state.kept = true }
                for n in conn.takeNotices() {
                    lines.append(TAPLine("# \(n.severity): \(n.message)", location: step.location))
                }
                append(output, at: step.location, duration: elapsed, to: &lines)
                // A session-level SET is what the session has from now on; anything else done
                // outside the file's transaction had its transaction end with it.
                let words = script.words[i]
                if ["set", "reset"].contains(words.first ?? "") {
                    if words.dropFirst().first != "local" { sessionValues = try captureSettings() }
                } else if !state.open {
                    try restoreSettings()
                }
                // Whatever the scanner thought of the statement, it must not end our transaction.
                if let problem = Self.transactionProblem(conn, at: step.location) {
                    result.malformed.append(problem)
                    return false
                }
            }
        }
        return true
    }

    /// Statements that start so cannot end our transaction, touch savepoints or set session
    /// values, so nothing between them needs a look from us.
    static let pipelined: Set<String> = ["select", "insert", "update", "delete", "with", "values", "table"]

    static func pipelinable(_ script: PsqlScript, _ i: Int) -> Bool {
        guard case .sql = script.steps[i].kind, let first = script.words[i].first else { return false }
        return pipelined.contains(first) && script.kinds[i] == .other
    }

    /// Two or more pipelinable statements in a row from `start`, or nil.
    static func batch(_ script: PsqlScript, from start: Int) -> Range<Int>? {
        var end = start
        while end < script.steps.count, pipelinable(script, end) { end += 1 }
        return end - start > 1 ? start..<end : nil
    }

    /// Sends the statements in one message, as psql sends `a \\; b`: the server runs them in
    /// order and stops at the first error, as ON_ERROR_STOP would. False when one failed.
    /// Notices come back for the whole run of statements, before its rows.
    func runBatch(_ steps: ArraySlice<PsqlStep>, into lines: inout [TAPLine], result: inout PgTAPFileResult) throws
        -> Bool
    {
        let sqls = steps.map { step -> String in if case .sql(let sql) = step.kind { sql } else { "" } }
        // A newline first, so a statement's closing line comment cannot swallow the semicolon.
        var text = ""
        var offsets: [Int] = []
        var at = 0
        for sql in sqls {
            if !offsets.isEmpty {
                text += "\n;\n"
                at += 3
            }
            offsets.append(at)
            text += sql
            at += sql.unicodeScalars.count
        }
        let t0 = Date()
        var outputs: [QueryResult]
        var failure: PostgresError?
        var notices: [Notice]
        do {
            let r = try conn.runScript(text)
            (outputs, notices) = (r.results, r.notices)
        } catch {
            (outputs, failure, notices) = (error.completed, error.error, error.notices)
        }
        let each = Date().timeIntervalSince(t0) / Double(sqls.count)
        let first = steps[steps.startIndex].location
        for n in notices { lines.append(TAPLine("# \(n.severity): \(n.message)", location: first)) }
        for (step, output) in zip(steps, outputs) { append(output, at: step.location, duration: each, to: &lines) }
        if var error = failure {
            if error.isConnectionFailure || error.kind != .server || !conn.isAlive { throw error }
            let k = min(outputs.count, sqls.count - 1)
            error.position = error.position.map { $0 - offsets[k] }
            result.sqlError = PgTAPSQLError(error, sql: sqls[k], at: steps[steps.startIndex + k].location)
            return false
        }
        if let problem = Self.transactionProblem(conn, at: steps[steps.index(before: steps.endIndex)].location) {
            result.malformed.append(problem)
            return false
        }
        return true
    }

    /// The file's own savepoint statements took away one of ours.
    func savepointProblem(_ state: FileState, at location: SourceLocation) -> ScriptProblem {
        let by =
            state.released.map { " (the file's statement at line \($0.line) released or rolled back past it)" } ?? ""
        return ScriptProblem(
            location,
            "a savepoint rlskit needs here no longer exists\(by): leave rlskit's savepoints "
                + "(\(Self.fileSavepoint), \(Self.statementSavepoint)) alone; the run's work so far was rolled back")
    }

    /// A problem naming the statement when rlskit's transaction is no longer open after it.
    static func transactionProblem(_ conn: PostgresConnection, at location: SourceLocation) -> ScriptProblem? {
        conn.inTransaction
            ? nil
            : ScriptProblem(
                location,
                "this statement ended rlskit's transaction (transaction control rlskit did not recognise), "
                    + "so what the run did before it may have been committed: check the database and remove the statement"
            )
    }

    static func touchesSavepoints(_ words: [String]) -> Bool {
        let w = words.prefix(3)
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
