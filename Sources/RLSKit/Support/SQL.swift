/// Quoting for SQL text that is shown to people and run as is. `ident` is the one way to
/// put a name into SQL that runs; `display` the one way to name it in reports and lock files.
@_spi(CLI) public enum SQL {
    static func literal(_ s: String) -> String {
        if !s.utf8.contains(where: { $0 == 39 || $0 == 92 }) { return "'" + s + "'" }  // fast path: no ' or \
        let body = s.replacingOccurrences(of: "'", with: "''")
        return s.contains("\\") ? "E'" + body.replacingOccurrences(of: "\\", with: "\\\\") + "'" : "'" + body + "'"
    }

    /// An identifier for SQL that runs, quoted exactly where the server's `quote_ident` quotes
    /// (anything but lower-case letters, digits and `_`, a leading digit, a keyword that is
    /// not unreserved), and always with `always` (as psql's `:"name"` does).
    static func ident(_ s: String, always: Bool = false) -> String {
        always || needsQuotes(s) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }

    /// `schema.name`, quoting only where needed.
    static func qualified(_ schema: String, _ name: String) -> String { ident(schema) + "." + ident(name) }

    /// A name in a report or lock file: quoted as `ident` quotes it, with `\` and line breaks
    /// escaped inside the quotes so that it stays on one line.
    public static func display(_ s: String, always: Bool = false) -> String {
        guard always || needsQuotes(s) else { return s }
        // One pass, no Foundation: reports name thousands of objects.
        var out = "\""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\"": out += "\"\""
            default: out.unicodeScalars.append(c)
            }
        }
        return out + "\""
    }

    static func needsQuotes(_ s: String) -> Bool {
        guard let first = s.utf8.first, first == 95 || (97...122).contains(first) else { return true }
        if !s.utf8.allSatisfy({ $0 == 95 || (97...122).contains($0) || (48...57).contains($0) }) { return true }
        return keywords.contains(s)
    }

    /// Every keyword that is not unreserved (`select word from pg_get_keywords() where catcode
    /// <> 'U'`), of every supported PostgreSQL version: quoting one too many is harmless, one
    /// too few breaks the statement. A test compares it with the server's list.
    static let keywords: Set<String> = Set(
        """
        all analyse analyze and any array as asc asymmetric both case cast check collate column constraint
        create current_catalog current_date current_role current_time current_timestamp current_user default
        deferrable desc distinct do else end except false fetch for foreign from grant group having in
        initially intersect into lateral leading limit localtime localtimestamp not null offset on only or
        order placing primary references returning select session_user some symmetric table then to trailing
        true union unique user using variadic when where window with
        authorization binary collation concurrently cross current_schema freeze full ilike inner is isnull
        join left like natural notnull outer overlaps right similar tablesample verbose
        between bigint bit boolean char character coalesce dec decimal exists extract float greatest grouping
        inout int integer interval least national nchar none normalize nullif numeric out overlay position
        precision real row setof smallint substring time timestamp treat trim values varchar xmlattributes
        xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable
        system_user json json_array json_arrayagg json_object json_objectagg
        json_exists json_query json_scalar json_serialize json_table json_value merge_action
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
}
