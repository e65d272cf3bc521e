import Postgres

/// `supabase_functions` exists on the platform only once database webhooks are turned on: a new
/// project has none, and a migration may create it as its own (`create schema if not exists
/// supabase_functions` and tables in it, which the webhooks' schema, owned by supabase_admin,
/// would refuse). The stand-in keeps one for the triggers of projects that use webhooks; before
/// a migration that creates the schema, it gives the stand-in's up, if nothing uses it.
extension StandIn {
    static let webhooksSchema = "supabase_functions"

    /// Whether `text` creates the webhooks' schema (`create schema [if not exists] supabase_functions`).
    static func createsWebhooksSchema(_ text: String) -> Bool {
        let s = Array(text.unicodeScalars)
        let words = SQLLexer.tokens(s).filter { !$0.isTrivia }.map { t -> String in
            let w = String(String.UnicodeScalarView(s[t.start..<t.end]))
            return t.kind == .word ? w.lowercased() : t.kind == .quotedName ? String(w.dropFirst().dropLast()) : w
        }
        for i in words.indices where words[i] == "create" && i + 2 < words.count && words[i + 1] == "schema" {
            var j = i + 2
            if words[j] == "if", j + 3 < words.count, words[j + 1] == "not", words[j + 2] == "exists" { j += 3 }
            if words[j] == webhooksSchema { return true }
        }
        return false
    }

    /// Drops the stand-in's webhooks schema (its trigger function and hooks table) when the
    /// admin still owns it and nothing else uses it; else leaves it. True when it was dropped.
    @discardableResult
    static func yieldWebhooksSchema(_ conn: PostgresConnection) -> Bool {
        let ours =
            try? conn.query(
                "select n.nspowner = (select oid from pg_roles where rolname = current_user) as ours from pg_namespace n where nspname = $1",
                [webhooksSchema]
            ).rows.first?.decode("ours") as Bool?
        guard ours == true else { return false }
        do {
            try conn.transaction { c in
                // Plain drops: a project trigger on http_request, or a project object in the schema, keeps it.
                try c.query("drop function if exists supabase_functions.http_request()")
                try c.query("drop table if exists supabase_functions.hooks")
                try c.query("drop schema supabase_functions")
            }
            return true
        } catch { return false }
    }
}
