import Foundation

/// The lock file: a canonical, line-oriented text of a `SecuritySurface`, made to be
/// committed and reviewed. Values are one line each (`\n` and `\\` escaped); `-` means none.
public enum LockFile {
    public static let format = 1
    static let formatPrefix = "# rlskit policy lock, format "
    public static let formatLine = formatPrefix + String(format)
    /// A comment to older readers; what was not read to this one (`SecuritySurface.unread`).
    static let unreadPrefix = "# unread: "
    static let commands = ["SELECT", "INSERT", "UPDATE", "DELETE", "ALL"]
    static let privileges = ["SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER", "MAINTAIN"]

    public static func render(_ s: SecuritySurface) -> String {
        var out = formatLine + "\n"
        out += "# Written by `rlskit snapshot`; compare with `rlskit diff FILE`. Do not edit by hand.\n"
        for u in s.unread { out += unreadPrefix + escape(u) + "\n" }
        out += "exposed schemas: \(s.exposedSchemas.map(escape).joined(separator: ", "))\n"
        for t in s.tables {
            out += "\n\(t.header)\n"
            out += "  row level security: \(t.rls ? "on" : "off")\n"
            out += "  force row level security: \(t.forceRLS ? "on" : "off")\n"
            for grantee in t.grants.keys.sorted() {
                out += "  grant \(grantee): \(t.grants[grantee]!.joined(separator: ", "))\n"
            }
            for p in t.policies {
                out += "  policy \(quote(p.name))\n"
                out += "    command: \(p.command)\n"
                out += "    type: \(p.permissive ? "permissive" : "restrictive")\n"
                out += "    roles: \(p.roles.joined(separator: ", "))\n"
                out += "    using: \(p.using.map(escape) ?? "-")\n"
                out += "    with check: \(p.withCheck.map(escape) ?? "-")\n"
            }
        }
        for f in s.functions {
            out += "\n\(f.header)\n"
            out += "  security definer\n"
            out += "  search_path: \(f.searchPath.map(escape) ?? "-")\n"
            out += "  execute: \(f.execute.isEmpty ? "-" : f.execute.joined(separator: ", "))\n"
        }
        for b in s.buckets {
            out += "\n\(b.header)\n"
            out += "  name: \(escape(b.name))\n"
            out += "  public: \(b.isPublic)\n"
            out += "  file size limit: \(b.fileSizeLimit ?? "-")\n"
            out += "  allowed mime types: \(b.allowedMimeTypes.map { $0.map(escape).joined(separator: ", ") } ?? "-")\n"
        }
        return out
    }

    static func escape(_ v: String) -> String {
        v.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(
            of: "\r", with: "\\r")
    }

    static func unescape(_ v: String) -> String {
        var out = ""
        var it = v.makeIterator()
        while let c = it.next() {
            guard c == "\\", let n = it.next() else {
                out.append(c)
                continue
            }
            switch n {
            case "n": out.append("\n")
            case "r": out.append("\r")
            default: out.append(n)
            }
        }
        return out
    }

    static func quote(_ name: String) -> String { SQL.display(name, always: true) }

    static func unquote(_ text: String) -> String? {
        guard text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") else { return nil }
        return unescape(String(text.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\""))
    }

    /// `schema.name` as `SQL.display` writes it today: older lock files left keywords and `$`
    /// unquoted, and must still compare equal. Text that is not a dotted name is kept as is.
    static func normalizedName(_ text: String) -> String {
        var parts: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            var end = rest.startIndex
            if rest.first == "\"" {
                var i = rest.index(after: end)
                var closed = false
                while i < rest.endIndex {
                    if rest[i] == "\\" {
                        i = rest.index(after: i)
                        if i < rest.endIndex { i = rest.index(after: i) }
                        continue
                    }
                    if rest[i] == "\"" {
                        let next = rest.index(after: i)
                        if next < rest.endIndex, rest[next] == "\"" {
                            i = rest.index(after: next)
                            continue
                        }
                        end = next
                        closed = true
                        break
                    }
                    i = rest.index(after: i)
                }
                guard closed, let name = unquote(String(rest[..<end])) else { return text }
                parts.append(name)
            } else {
                end = rest.firstIndex(of: ".") ?? rest.endIndex
                let bare = rest[..<end]
                guard !bare.isEmpty, !bare.contains("\"") else { return text }
                parts.append(String(bare))
            }
            rest = rest[end...]
            if rest.first == "." {
                rest = rest.dropFirst()
                if rest.isEmpty { return text }
            } else if !rest.isEmpty {
                return text
            }
        }
        return parts.count == 2 ? parts.map { SQL.display($0) }.joined(separator: ".") : text
    }

    /// `schema.name(argument types)` with the name normalized.
    static func normalizedSignature(_ text: String) -> String {
        var quoted = false
        var escaped = false
        for i in text.indices {
            let c = text[i]
            if escaped {
                escaped = false
            } else if quoted && c == "\\" {
                escaped = true
            } else if c == "\"" {
                quoted.toggle()
            } else if c == "(" && !quoted {
                return normalizedName(String(text[..<i])) + text[i...]
            }
        }
        return text
    }

    /// Reads a lock file back; a mistake is one `file:line: …` message.
    public static func parse(_ text: String, file: String) throws -> SecuritySurface {
        var s = SecuritySurface(exposedSchemas: [])
        enum Current {
            case none
            case table(Int)
            case policy(Int, Int)
            case function(Int)
            case bucket(Int)
        }
        var current = Current.none
        var sawFormat = false
        var policyLines: [(table: Int, policy: Int, line: Int)] = []
        let tableKinds = ["partitioned table", "materialized view", "foreign table", "table", "view"]
        for (i, raw) in TextFile.lines(text).enumerated() {
            let line = String(raw)
            func fail(_ m: String) -> ConfigurationError { ConfigurationError("\(file):\(i + 1): \(m)") }
            if line == formatLine {
                sawFormat = true
                continue
            }
            if !sawFormat, line.hasPrefix(formatPrefix) {
                let version = String(line.dropFirst(formatPrefix.count))
                if let n = Int(version), n > format {
                    throw fail(
                        "lock file format \(n) is newer than this rlskit understands (\(format)): update rlskit, or write the lock file again with 'rlskit snapshot'"
                    )
                }
                throw fail(
                    "unknown lock file format '\(version)' (this rlskit writes and reads format \(format)): write the lock file again with 'rlskit snapshot'"
                )
            }
            if sawFormat, line.hasPrefix(unreadPrefix) {
                s.unread.append(unescape(String(line.dropFirst(unreadPrefix.count))))
                continue
            }
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard sawFormat else { throw fail("not an rlskit lock file (expected '\(formatLine)' first)") }
            let indent = line.prefix { $0 == " " }.count
            let body = String(line.dropFirst(indent))
            func value(_ key: String) -> String? {
                body.hasPrefix(key + ": ") ? String(body.dropFirst(key.count + 2)) : (body == key + ":" ? "" : nil)
            }
            func list(_ v: String) -> [String] { v == "-" ? [] : v.components(separatedBy: ", ").map(unescape) }
            /// A value from a fixed set; anything else is a mistake, never read as some default.
            func one(_ key: String, _ v: String, _ allowed: [String]) throws -> String {
                guard allowed.contains(v) else {
                    throw fail(
                        "\(key) must be \(allowed.joined(separator: " or ")), not '\(v.prefix(40))': fix the line or write the lock file again with 'rlskit snapshot'"
                    )
                }
                return v
            }
            func onOff(_ key: String, _ v: String) throws -> Bool { try one(key, v, ["on", "off"]) == "on" }
            func members(_ key: String, _ v: String, _ allowed: [String]) throws -> [String] {
                let items = list(v)
                if let bad = items.first(where: { !allowed.contains($0) }) {
                    throw fail("unknown \(key) '\(bad.prefix(40))': use \(allowed.joined(separator: ", "))")
                }
                return items
            }
            switch (indent, current) {
            case (0, _):
                if let v = value("exposed schemas") {
                    s.exposedSchemas = list(v)
                    current = .none
                    continue
                }
                if let kind = tableKinds.first(where: { body.hasPrefix($0 + " ") }) {
                    s.tables.append(
                        .init(
                            kind: kind, name: normalizedName(String(body.dropFirst(kind.count + 1))), rls: false,
                            forceRLS: false, grants: [:], policies: []))
                    current = .table(s.tables.count - 1)
                } else if body.hasPrefix("function ") {
                    s.functions.append(
                        .init(signature: normalizedSignature(String(body.dropFirst(9))), searchPath: nil, execute: []))
                    current = .function(s.functions.count - 1)
                } else if body.hasPrefix("bucket ") {
                    let raw = String(body.dropFirst(7))
                    s.buckets.append(
                        .init(
                            id: unquote(raw) ?? raw, name: "", isPublic: false, fileSizeLimit: nil,
                            allowedMimeTypes: nil))
                    current = .bucket(s.buckets.count - 1)
                } else {
                    throw fail("unknown entry '\(body.prefix(40))'")
                }
            case (2, .table(let t)), (2, .policy(let t, _)):
                if let v = value("row level security") {
                    s.tables[t].rls = try onOff("row level security", v)
                    current = .table(t)
                } else if let v = value("force row level security") {
                    s.tables[t].forceRLS = try onOff("force row level security", v)
                    current = .table(t)
                } else if body.hasPrefix("grant "), let colon = body.range(of: ": ") {
                    let grantee = String(body[body.index(body.startIndex, offsetBy: 6)..<colon.lowerBound])
                    _ = try members("grantee", grantee, SecuritySurface.apiGrantees)
                    s.tables[t].grants[grantee] = try members(
                        "privilege", String(body[colon.upperBound...]), privileges)
                    current = .table(t)
                } else if body.hasPrefix("policy "), let name = unquote(String(body.dropFirst(7))) {
                    s.tables[t].policies.append(
                        .init(name: name, command: "", permissive: true, roles: [], using: nil, withCheck: nil))
                    policyLines.append((t, s.tables[t].policies.count - 1, i + 1))
                    current = .policy(t, s.tables[t].policies.count - 1)
                } else {
                    throw fail("unexpected line in \(s.tables[t].header): '\(body.prefix(40))'")
                }
            case (4, .policy(let t, let p)):
                if let v = value("command") {
                    s.tables[t].policies[p].command = try one("command", v, commands)
                } else if let v = value("type") {
                    s.tables[t].policies[p].permissive =
                        try one("type", v, ["permissive", "restrictive"]) == "permissive"
                } else if let v = value("roles") {
                    s.tables[t].policies[p].roles = list(v)
                } else if let v = value("using") {
                    s.tables[t].policies[p].using = v == "-" ? nil : unescape(v)
                } else if let v = value("with check") {
                    s.tables[t].policies[p].withCheck = v == "-" ? nil : unescape(v)
                } else {
                    throw fail("unexpected line in policy: '\(body.prefix(40))'")
                }
            case (2, .function(let f)):
                if body == "security definer" { continue }
                if let v = value("search_path") {
                    s.functions[f].searchPath = v == "-" ? nil : unescape(v)
                } else if let v = value("execute") {
                    s.functions[f].execute = try members("role", v, SecuritySurface.apiGrantees)
                } else {
                    throw fail("unexpected line in \(s.functions[f].header): '\(body.prefix(40))'")
                }
            case (2, .bucket(let b)):
                if let v = value("name") {
                    s.buckets[b].name = unescape(v)
                } else if let v = value("public") {
                    s.buckets[b].isPublic = try one("public", v, ["true", "false"]) == "true"
                } else if let v = value("file size limit") {
                    guard v == "-" || (Int64(v).map { $0 >= 0 } ?? false) else {
                        throw fail(
                            "file size limit must be a number of bytes or '-', not '\(v.prefix(40))': fix the line or write the lock file again with 'rlskit snapshot'"
                        )
                    }
                    s.buckets[b].fileSizeLimit = v == "-" ? nil : v
                } else if let v = value("allowed mime types") {
                    s.buckets[b].allowedMimeTypes = v == "-" ? nil : list(v)
                } else {
                    throw fail("unexpected line in \(s.buckets[b].header): '\(body.prefix(40))'")
                }
            default:
                throw fail("unexpected indentation or line '\(body.prefix(40))'")
            }
        }
        guard sawFormat else {
            throw ConfigurationError("\(file):1: not an rlskit lock file (expected '\(formatLine)' first)")
        }
        for (t, p, line) in policyLines where s.tables[t].policies[p].command.isEmpty {
            throw ConfigurationError(
                "\(file):\(line): policy without a 'command:' line: write the lock file again with 'rlskit snapshot'")
        }
        s.normalize()
        return s
    }
}
