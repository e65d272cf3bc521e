/// Quoting for SQL text that is shown to people and run as is.
public enum SQL {
    public static func literal(_ s: String) -> String {
        if !s.utf8.contains(where: { $0 == 39 || $0 == 92 }) { return "'" + s + "'" }   // fast path: no ' or \
        let body = s.replacingOccurrences(of: "'", with: "''")
        return s.contains("\\") ? "E'" + body.replacingOccurrences(of: "\\", with: "\\\\") + "'" : "'" + body + "'"
    }

    public static func identifier(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `schema.name`, quoting only where needed.
    public static func qualified(_ schema: String, _ name: String) -> String { ident(schema) + "." + ident(name) }

    /// An identifier quoted only when it must be.
    public static func ident(_ s: String) -> String {
        let plain = !s.isEmpty && s.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
            && !("0"..."9").contains(s.unicodeScalars.first!) && !reserved.contains(s)
        return plain ? s : identifier(s)
    }

    static let reserved: Set<String> = ["user", "order", "group", "table", "select", "from", "where", "to", "all", "and", "or",
                                        "check", "default", "primary", "references", "end", "limit", "offset", "column", "grant", "desc", "asc"]
}
