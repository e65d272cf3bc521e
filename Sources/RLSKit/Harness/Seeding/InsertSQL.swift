/// The part of an INSERT after the table name. A row with no column to fill (every column an
/// identity or defaulted) needs `default values`: `() values ()` is a syntax error.
enum InsertSQL {
    /// ` (a, b) values (x, y)`, or ` default values`.
    static func values(_ columns: [String], _ values: [String], overriding: String = "") -> String {
        columns.isEmpty
            ? " default values"
            : " (\(columns.joined(separator: ", ")))\(overriding) values (\(values.joined(separator: ", ")))"
    }

    /// ` (a, b) select x, y`, or ` select` (no target column: every column takes its default),
    /// for an insert guarded by `where not exists`.
    static func select(_ columns: [String], _ values: [String], overriding: String = "") -> String {
        columns.isEmpty
            ? " select" : " (\(columns.joined(separator: ", ")))\(overriding) select \(values.joined(separator: ", "))"
    }
}
