import CLibPQ
import Foundation

/// A server notice (WARNING, NOTICE, INFO, …) raised while a command ran.
public struct Notice: Sendable, Equatable, CustomStringConvertible {
    public var severity: String
    public var sqlState: String?
    public var message: String
    public var detail: String?
    public var hint: String?
    /// In a script: how many of its statements had completed when it was raised, so the
    /// index of the statement that raised it; nil outside a script.
    public var statement: Int? = nil
    public var description: String { "\(severity): \(message)" }
}

final class NoticeSink {
    var notices: [Notice] = []
    var secret: [String] = []
    var statement: Int?
}

/// One connection to a PostgreSQL server over libpq.
///
/// A connection is owned by one task at a time: it is not `Sendable`, so Swift 6 refuses to
/// share it between concurrent tasks. Open one per task (or per worker thread) instead.
public final class PostgresConnection {
    private(set) var handle: OpaquePointer
    let secret: [String]
    let sink = NoticeSink()
    var savepointDepth = 0
    /// Statements prepared by pipelines: SQL text and parameter types → server-side name.
    var preparedNames: [PreparedKey: String] = [:]
    var preparedCounter = 0
    /// Times a pipeline waited for the server before it could go on (for tests).
    var pipelineRounds = 0
    /// Where this connection goes, with the password redacted.
    public let target: String
    /// What it was opened with: `reconnect` and a second connection (to end this one's backend) use it.
    public let connectionString: ConnectionString

    /// Connects, or throws a `.connection` error whose message never contains the password.
    public init(_ connection: ConnectionString = .fromEnvironment()) throws {
        secret = connection.secrets
        target = connection.label
        connectionString = connection
        handle = try Self.open(connection, secret: secret, target: target)
        attach()
    }

    /// A new session with the same settings, after the server ended this one (pg_terminate_backend):
    /// prepared statements and savepoints belonged to the old session.
    public func reconnect() throws {
        let fresh = try Self.open(connectionString, secret: secret, target: target)
        PQfinish(handle)
        handle = fresh
        isClosed = false
        preparedNames = [:]
        savepointDepth = 0
        attach()
    }

    static func open(_ connection: ConnectionString, secret: [String], target: String) throws -> OpaquePointer {
        if !connection.raw.isEmpty { _ = try connection.options() }
        // Dates are decoded from ISO output, so DateStyle is appended to whatever options the
        // user gave (in the string or PGOPTIONS): a later -c wins, nothing of theirs is lost.
        let env = ProcessInfo.processInfo.environment
        let parsed = (try? connection.options()) ?? [:]
        let userOptions = parsed["options"] ?? env["PGOPTIONS"] ?? ""
        // Entries before dbname yield to the string's own settings, so the default timeout
        // only applies where the user set none.
        let timeout = Self.defaultTimeout(options: parsed, env: env)
        let keys = ["fallback_application_name", "connect_timeout", "dbname", "options"]
        let vals = [
            "rlskit", timeout ?? "", connection.raw,
            (userOptions + " -c DateStyle=ISO,YMD -c IntervalStyle=postgres").trimmingWhitespace(),
        ]
        var conn: OpaquePointer?
        keys.withCStrings { k in vals.withCStrings { v in conn = PQconnectdbParams(k, v, 1) } }
        guard let conn else { throw PostgresError(kind: .connection, message: "out of memory while connecting") }
        if PQstatus(conn) != CONNECTION_OK {
            var message = Self.oneLine(
                PostgresError.scrub(String(cString: PQerrorMessage(conn)).trimmingWhitespace(), secret))
            PQfinish(conn)
            if message.hasSuffix("timeout expired"),
                let seconds = parsed["connect_timeout"].flatMap({ $0.isEmpty ? nil : $0 }) ?? env["PGCONNECT_TIMEOUT"]
                    .flatMap({ $0.isEmpty ? nil : $0 }) ?? timeout
            {
                message +=
                    " (no answer within \(seconds) s; raise connect_timeout or PGCONNECT_TIMEOUT if the server is only slow)"
            }
            var e = PostgresError(kind: .connection, message: message, sqlState: "08001")
            e.connectTarget = target
            throw e
        }
        return conn
    }

    func attach() {
        PQsetClientEncoding(handle, "UTF8")
        sink.secret = secret
        PQsetNoticeReceiver(
            handle,
            { arg, result in
                guard let arg, let result else { return }
                let sink = Unmanaged<NoticeSink>.fromOpaque(arg).takeUnretainedValue()
                let e = PostgresError(result: result, scrubbing: sink.secret)
                sink.notices.append(
                    Notice(
                        severity: e.severity ?? "NOTICE", sqlState: e.sqlState, message: e.message, detail: e.detail,
                        hint: e.hint, statement: sink.statement))
            }, Unmanaged.passUnretained(sink).toOpaque())
    }

    deinit { PQfinish(handle) }

    /// Ends the session now (a dropped connection also ends it). Any later use throws a
    /// connection error; closing twice is harmless.
    public func close() {
        guard !isClosed else { return }
        PQfinish(handle)
        // A handle that never connects (an unknown option fails at once, without the network):
        // using the connection after close gets libpq's own "no connection" error.
        handle = PQconnectdb("rlskit_closed=1")
        isClosed = true
    }

    public private(set) var isClosed = false

    /// Seconds libpq may spend connecting when the user set no limit.
    public static let defaultConnectTimeout = 10

    /// libpq waits for ever on a server that accepts and never answers. Nil when the user
    /// chose (PGCONNECT_TIMEOUT, or a service file, which the parameter would override).
    static func defaultTimeout(options: [String: String], env: [String: String]) -> String? {
        if !(options["service"] ?? "").isEmpty { return nil }
        for key in ["PGCONNECT_TIMEOUT", "PGSERVICE", "PGSERVICEFILE"] where !(env[key] ?? "").isEmpty { return nil }
        return String(defaultConnectTimeout)
    }

    /// libpq's multi-line connection messages folded into one line.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }.joined(
            separator: "; ")
    }

    /// The server version as an integer, e.g. 150018.
    public var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// True while a transaction block is open (also when it has failed).
    public var inTransaction: Bool {
        let s = PQtransactionStatus(handle)
        return s == PQTRANS_INTRANS || s == PQTRANS_INERROR
    }

    public enum TransactionState: Sendable { case idle, active, failed, unknown }

    /// Where the connection stands: outside a transaction, in one, or in a failed one.
    public var transactionState: TransactionState {
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE: return .idle
        case PQTRANS_INTRANS: return .active
        case PQTRANS_INERROR: return .failed
        default: return .unknown
        }
    }

    /// A setting the server reports as it changes (ParameterStatus), e.g. `standard_conforming_strings`.
    public func parameterStatus(_ name: String) -> String? {
        PQparameterStatus(handle, name).map { String(cString: $0) }
    }

    /// True when the connection is still usable.
    public var isAlive: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The server process of this session, as pg_stat_activity and pg_terminate_backend name it.
    public var backendPID: Int32 { PQbackendPID(handle) }

    /// What another thread may use to cancel the statement running here; nil when not connected.
    public func canceller() -> Canceller? {
        PQgetCancel(handle).map { Canceller($0, socket: PQsocket(handle)) }
    }

    /// Notices raised since the last call, oldest first.
    public func takeNotices() -> [Notice] {
        defer { sink.notices.removeAll() }
        return sink.notices
    }

    // MARK: Queries

    /// Runs one statement with bound parameters (`$1`, `$2`, …). Values are never pasted into the SQL.
    @discardableResult
    public func query(_ sql: String, _ parameters: [any PostgresEncodable] = []) throws -> QueryResult {
        try Self.checkNoNUL(sql, parameters)
        let sent = withParameters(parameters) { types, values, count in
            PQsendQueryParams(handle, sql, count, types, values, nil, nil, 0)
        }
        guard sent == 1 else { throw connectionError() }
        var first: Result<QueryResult, PostgresError>?
        while let r = PQgetResult(handle) {
            defer { PQclear(r) }
            endCopy(r)
            if first == nil {
                do { first = .success(try Self.read(r, secret: secret)) } catch let e as PostgresError {
                    first = .failure(e)
                } catch {}
            }
        }
        guard let first else { throw connectionError() }
        return try first.get()
    }

    /// Ends a COPY FROM STDIN / TO STDOUT the server started, so the connection stays usable;
    /// `read` then reports it as unsupported.
    func endCopy(_ r: OpaquePointer) {
        switch PQresultStatus(r) {
        case PGRES_COPY_IN, PGRES_COPY_BOTH:
            _ = PQputCopyEnd(handle, "rlskit does not send COPY data")
        case PGRES_COPY_OUT:
            var buffer: UnsafeMutablePointer<CChar>?
            while PQgetCopyData(handle, &buffer, 0) > 0 { PQfreemem(buffer) }
        default:
            break
        }
    }

    /// libpq stops at a NUL byte: refuse text that has one rather than send a cut value.
    static func checkNoNUL(_ sql: String, _ parameters: [any PostgresEncodable]) throws {
        if sql.utf8.contains(0) {
            throw PostgresError(
                kind: .client, message: "the SQL text contains a NUL byte, which PostgreSQL cannot accept")
        }
        for (i, p) in parameters.enumerated() where p.postgresText?.utf8.contains(0) ?? false {
            throw PostgresError(
                kind: .client, message: "parameter $\(i + 1) contains a NUL byte, which PostgreSQL cannot accept")
        }
    }

    /// Runs a multi-statement script as the server receives it from psql's `-c`: all statements
    /// in one simple-query message, every result returned in order, with the notices raised.
    /// On failure the error carries the results of the statements that completed before it.
    public func runScript(_ sql: String) throws(ScriptError) -> ScriptResult {
        _ = takeNotices()
        if sql.utf8.contains(0) {
            throw ScriptError(
                error: PostgresError(
                    kind: .client, message: "the SQL text contains a NUL byte, which PostgreSQL cannot accept"),
                completed: [], notices: [])
        }
        guard PQsendQuery(handle, sql) == 1 else {
            throw ScriptError(error: connectionError(), completed: [], notices: takeNotices())
        }
        var results: [QueryResult] = []
        var failure: PostgresError?
        sink.statement = 0
        defer { sink.statement = nil }
        while let r = PQgetResult(handle) {
            defer { PQclear(r) }
            endCopy(r)
            if failure != nil { continue }
            do { results.append(try Self.read(r, secret: secret)) } catch let e as PostgresError { failure = e } catch {
            }
            sink.statement = results.count
        }
        if failure == nil, PQstatus(handle) != CONNECTION_OK { failure = connectionError() }
        if let failure { throw ScriptError(error: failure, completed: results, notices: takeNotices()) }
        return ScriptResult(results: results, notices: takeNotices())
    }

    // MARK: Escaping

    /// Quotes an identifier through libpq (`"my ""table"""`).
    public func escapeIdentifier(_ name: String) throws -> String {
        guard let p = PQescapeIdentifier(handle, name, name.utf8.count) else { throw connectionError() }
        defer { PQfreemem(p) }
        return String(cString: p)
    }

    /// Quotes a literal through libpq (`'it''s'`, or `E'…'` where backslashes need it).
    public func escapeLiteral(_ value: String) throws -> String {
        guard let p = PQescapeLiteral(handle, value, value.utf8.count) else { throw connectionError() }
        defer { PQfreemem(p) }
        return String(cString: p)
    }

    // MARK: Internals

    func connectionError() -> PostgresError {
        let raw = Self.oneLine(String(cString: PQerrorMessage(handle)))
        let msg = PostgresError.scrub(raw, secret)
        if PQstatus(handle) != CONNECTION_OK {
            return PostgresError(kind: .connection, message: msg.isEmpty ? "connection lost" : msg, sqlState: "08006")
        }
        return PostgresError(kind: .client, message: msg.isEmpty ? "libpq request failed" : msg)
    }

    /// Hands libpq the parameters' text forms as C strings, borrowed from the strings themselves.
    func withParameters<R>(
        _ parameters: [any PostgresEncodable],
        _ body: (UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?, Int32) -> R
    ) -> R {
        if parameters.isEmpty { return body(nil, nil, 0) }
        let texts = parameters.map { $0.postgresText }
        var types = [Oid](repeating: 0, count: parameters.count)
        for (i, p) in parameters.enumerated() { types[i] = Oid(type(of: p).postgresType.rawValue) }
        var pointers = [UnsafePointer<CChar>?](repeating: nil, count: parameters.count)
        // Nested withCString calls keep every pointer valid while libpq copies the values.
        func bind(_ i: Int) -> R {
            if i == texts.count {
                return pointers.withUnsafeBufferPointer { p in
                    types.withUnsafeBufferPointer { t in body(t.baseAddress, p.baseAddress, Int32(texts.count)) }
                }
            }
            guard let text = texts[i] else { return bind(i + 1) }
            return text.withCString { c in
                pointers[i] = c
                return bind(i + 1)
            }
        }
        return bind(0)
    }

    /// Copies a result out of libpq, or throws the server error it carries.
    static func read(_ result: OpaquePointer, secret: [String]) throws -> QueryResult {
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY, PGRES_SINGLE_TUPLE:
            break
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            throw PostgresError(
                kind: .client,
                message: "COPY FROM STDIN / TO STDOUT is not supported; use INSERT, or COPY with a server-side file")
        default:
            throw PostgresError(result: result, scrubbing: secret)
        }
        let nfields = PQnfields(result)
        let tag = String(cString: PQcmdStatus(result))
        let affected = Int(String(cString: PQcmdTuples(result)))
        if nfields == 0 { return QueryResult(columns: [], rows: [], commandTag: tag, affectedRows: affected) }
        var columns: [PostgresColumn] = []
        columns.reserveCapacity(Int(nfields))
        for c in 0..<nfields {
            columns.append(
                PostgresColumn(
                    name: PQfname(result, c).map { String(cString: $0) } ?? "",
                    type: PostgresType(rawValue: PQftype(result, c))))
        }
        let index = ColumnIndex(columns)
        let ntuples = PQntuples(result)
        var rows: [PostgresRow] = []
        rows.reserveCapacity(Int(ntuples))
        for r in 0..<ntuples {
            var values: [String?] = []
            values.reserveCapacity(Int(nfields))
            for c in 0..<nfields {
                if PQgetisnull(result, r, c) == 1 {
                    values.append(nil)
                } else {
                    let len = Int(PQgetlength(result, r, c))
                    let p = PQgetvalue(result, r, c)!
                    values.append(
                        p.withMemoryRebound(to: UInt8.self, capacity: len) {
                            String(decoding: UnsafeBufferPointer(start: $0, count: len), as: UTF8.self)
                        })
                }
            }
            rows.append(PostgresRow(index: index, values: values))
        }
        return QueryResult(columns: columns, rows: rows, commandTag: tag, affectedRows: affected)
    }
}

struct PreparedKey: Hashable {
    var sql: String
    var types: [UInt32]
}

@available(*, unavailable, message: "a connection belongs to one task; open one per task")
extension PostgresConnection: Sendable {}

/// Everything a script produced.
public struct ScriptResult: Sendable {
    public var results: [QueryResult]
    public var notices: [Notice]
}

/// A script that failed part-way: the error, and what completed before it.
public struct ScriptError: Error, Sendable, CustomStringConvertible {
    public var error: PostgresError
    public var completed: [QueryResult]
    public var notices: [Notice]
    public var description: String { error.description }
}

extension Array where Element == String {
    func withCStrings<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        map { Optional($0) }.withOptionalCStrings { body($0!) }
    }
}

extension Array where Element == String? {
    /// NUL-terminated copies of each string (nil stays a null pointer), plus a trailing null.
    func withOptionalCStrings<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        var storage: [UnsafeMutablePointer<CChar>?] = map { s in s.map { strdup($0)! } }
        defer { for p in storage { free(p) } }
        storage.append(nil)
        return storage.withUnsafeBufferPointer { buf in
            buf.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buf.count) { body($0) }
        }
    }
}

extension PostgresConnection {
    /// The server-side verifier of `password` for `user`, computed here (libpq, the server's
    /// own algorithm): a CREATE ROLE can then carry it without the password ever being sent.
    public func passwordVerifier(_ password: String, user: String, algorithm: String? = nil) throws -> String {
        guard let p = PQencryptPasswordConn(handle, password, user, algorithm) else { throw connectionError() }
        defer { PQfreemem(p) }
        return String(cString: p)
    }
}

/// libpq's cancel object: made for use from another thread while the connection waits for a
/// result (PQcancel is thread-safe), hence Sendable although the connection is not.
public final class Canceller: @unchecked Sendable {
    private let cancel: OpaquePointer
    private let socket: Int32
    init(_ cancel: OpaquePointer, socket: Int32) {
        self.cancel = cancel
        self.socket = socket
    }
    deinit { PQfreeCancel(cancel) }

    /// Shuts the connection's socket (without closing the descriptor, which the connection
    /// still owns): a thread waiting for a result gets "connection lost" at once.
    public func abandon() { _ = shutdown(socket, Int32(SHUT_RDWR)) }

    /// Asks the server to cancel the running statement; false when the request could not be sent.
    /// The statement may still catch the cancel (query_canceled) and run on.
    @discardableResult
    public func cancelStatement() -> Bool {
        var buffer = [CChar](repeating: 0, count: 256)
        return PQcancel(cancel, &buffer, Int32(buffer.count)) == 1
    }
}
