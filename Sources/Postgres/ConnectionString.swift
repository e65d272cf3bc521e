import CLibPQ
import Foundation

/// Where to connect: a URI (`postgresql://…`), a keyword string (`host=… dbname=…`),
/// or libpq's own environment (`PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`, `PGDATABASE`,
/// `PGSSLMODE`, `~/.pgpass`), which an empty string selects.
///
/// Its `description` is safe to print: any password is replaced by `***`.
public struct ConnectionString: Sendable, Equatable, CustomStringConvertible {
    /// The text handed to libpq. Treat it as secret.
    public let raw: String

    public init(_ raw: String) { self.raw = raw }

    /// A value for a keyword string, quoted as libpq reads it (`'it\\'s'`).
    public static func quoted(_ value: String) -> String {
        "'" + value.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
    }

    /// `DATABASE_URL` when set, else libpq's environment variables.
    public static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment)
        -> ConnectionString
    {
        if let url = env["DATABASE_URL"], !url.isEmpty { return ConnectionString(url) }
        return ConnectionString("")
    }

    /// True when the environment names a database (DATABASE_URL or one of libpq's variables).
    public static func environmentNamesDatabase(_ env: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        ["DATABASE_URL", "PGHOST", "PGHOSTADDR", "PGPORT", "PGDATABASE", "PGSERVICE"].contains {
            !(env[$0] ?? "").isEmpty
        }
    }

    /// Parses the string the way libpq will. Throws a client error naming the problem (never the value).
    public func options() throws -> [String: String] {
        if Self.hasAmbiguousUserinfo(raw) {
            throw PostgresError(
                kind: .client,
                message:
                    "invalid connection string: the user or password holds an unencoded '@' or '/', write them as %40 and %2F"
            )
        }
        var errmsg: UnsafeMutablePointer<CChar>?
        guard let opts = PQconninfoParse(raw, &errmsg) else {
            // libpq's message can quote a fragment of the string (a password, say): give only
            // its kind of problem.
            var message = "invalid connection string"
            if let errmsg {
                let text = String(cString: errmsg)
                PQfreemem(errmsg)
                for (needle, said) in [
                    ("invalid URI query parameter", "unknown URI query parameter"), ("invalid URI", "malformed URI"),
                    ("invalid connection option", "unknown option"),
                    ("missing \"=\"", "expected key=value pairs"), ("unterminated quoted string", "unterminated quote"),
                    ("invalid port", "invalid port"), ("invalid percent-encoded", "bad percent-encoding"),
                    ("end of string reached", "incomplete URI"), ("IPv6", "malformed IPv6 host"),
                ] where text.contains(needle) {
                    message += ": " + said
                    break
                }
            }
            throw PostgresError(kind: .client, message: message)
        }
        defer { PQconninfoFree(opts) }
        var result: [String: String] = [:]
        var p = opts
        while let keyword = p.pointee.keyword {
            if let val = p.pointee.val { result[String(cString: keyword)] = String(cString: val) }
            p += 1
        }
        return result
    }

    /// The password written in the string itself, if any (used to scrub messages).
    public var password: String? {
        if raw.isEmpty { return nil }
        var errmsg: UnsafeMutablePointer<CChar>?
        guard let opts = PQconninfoParse(raw, &errmsg) else {
            if let errmsg { PQfreemem(errmsg) }
            return Self.uriPassword(raw)
        }
        defer { PQconninfoFree(opts) }
        var p = opts
        while let keyword = p.pointee.keyword {
            if String(cString: keyword) == "password", let val = p.pointee.val {
                let s = String(cString: val)
                return s.isEmpty ? nil : s
            }
            p += 1
        }
        return nil
    }

    /// Every form of the password the string may hold, for scrubbing messages: libpq's value
    /// and what the user wrote between the user name's ':' and the last '@' (raw and decoded).
    public var secrets: [String] {
        var list: [String] = []
        for s in [password, Self.uriPassword(raw, decode: false), Self.uriPassword(raw)] {
            if let s, !s.isEmpty, !list.contains(s) { list.append(s) }
        }
        // Longest first, so a shorter form never leaves part of a longer one behind.
        return list.sorted { $0.count > $1.count }
    }

    /// True for a URI that libpq would split elsewhere than its last '@': an unencoded '@' or
    /// '/' in the password would make part of it the host, port or database name, which
    /// libpq's messages then quote.
    static func hasAmbiguousUserinfo(_ text: String) -> Bool {
        guard let scheme = ["postgresql://", "postgres://"].first(where: { text.hasPrefix($0) }) else { return false }
        let rest = Array(text.utf8.dropFirst(scheme.utf8.count))
        let at = UInt8(ascii: "@")
        let slash = UInt8(ascii: "/")
        let question = UInt8(ascii: "?")
        guard let first = rest.firstIndex(of: at) else { return false }
        // libpq ends the user info at the first '@', unless a '/' comes before it.
        let hasUserinfo = !rest[..<first].contains(slash)
        let hostStart = hasUserinfo ? first + 1 : 0
        let queryStart = rest[hostStart...].firstIndex(of: question) ?? rest.endIndex
        if rest[hostStart..<queryStart].contains(at) { return true }
        if hasUserinfo { return false }
        // No user info for libpq, an '@' further on: "user:pass/…@host" unless what precedes
        // the '/' is a plain host:port.
        let authority = rest[..<(rest.firstIndex(of: slash) ?? rest.endIndex)]
        guard authority.last != UInt8(ascii: "]"), let colon = authority.lastIndex(of: UInt8(ascii: ":")) else {
            return false
        }
        return !authority[(colon + 1)...].allSatisfy {
            $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") || $0 == UInt8(ascii: ",")
        }
    }

    /// A human description with the password redacted. Unparseable input is never echoed:
    /// it may hold a password that the parser could not find.
    public var description: String {
        if raw.isEmpty { return "(libpq environment)" }
        guard let opts = try? options() else { return "(unparseable connection string)" }
        let order = ["host", "hostaddr", "port", "user", "dbname", "sslmode"]
        var parts: [String] = []
        for key in order { if let v = opts[key], !v.isEmpty { parts.append("\(key)=\(v)") } }
        if opts["password"].map({ !$0.isEmpty }) ?? false { parts.append("password=***") }
        return parts.isEmpty ? "(libpq defaults)" : parts.joined(separator: " ")
    }

    /// What output names a database by: its name and server (`app on db.example.com:5432`),
    /// never a connection string, not even a redacted one (user names and options stay out too).
    public var label: String {
        if raw.isEmpty { return "the database of the libpq environment" }
        guard let opts = try? options() else { return "the given database" }
        let db = opts["dbname"].flatMap { $0.isEmpty ? nil : $0 } ?? "the default database"
        guard let host = opts["host"] ?? opts["hostaddr"], !host.isEmpty else { return db }
        // A socket directory is a local path: said as "a local socket", not named.
        if host.hasPrefix("/") || host.hasPrefix("@") { return "\(db) on a local socket" }
        return "\(db) on \(host)" + (opts["port"].map { $0.isEmpty ? "" : ":\($0)" } ?? "")
    }

    static func uriPassword(_ text: String, decode: Bool = true) -> String? {
        guard let scheme = text.range(of: "://") else { return nil }
        let afterScheme = text[scheme.upperBound...]
        guard let at = afterScheme.lastIndex(of: "@") else { return nil }
        let userinfo = afterScheme[..<at]
        guard let colon = userinfo.firstIndex(of: ":") else { return nil }
        let pw = String(userinfo[userinfo.index(after: colon)...])
        return pw.isEmpty ? nil : decode ? (pw.removingPercentEncoding ?? pw) : pw
    }
}
