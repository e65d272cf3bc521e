/// The row a matrix check is about, so that a failed check can say which policies decided it.
struct CheckRow: Sendable {
    /// The table as SQL (`public.notes`).
    var table: String
    /// The table's own name: policy expressions name its columns by it inside subqueries.
    var name: String
    /// "SELECT" | "INSERT" | "UPDATE" | "DELETE"; an upsert is "INSERT" with `upsert`.
    var command: String
    /// The database role the actor acts as (anon, authenticated).
    var role: String
    /// A WHERE condition that picks the existing row (SELECT, UPDATE, DELETE, the upsert's conflict).
    var existing: String?
    /// INSERT: the new row's columns and values; the others take their defaults.
    var insert: (columns: [String], values: [String])?
    /// UPDATE: `column = expression` applied to the existing row.
    var assignments: [(column: String, value: String)] = []
    /// INSERT … ON CONFLICT DO UPDATE against `existing`: UPDATE policies also judge the old row,
    /// and the proposed row stands for the updated one (the overwrite sets the same values).
    var upsert = false
    /// The statement also returns rows (RETURNING): SELECT policies see the new or deleted row.
    var returning = false
}
