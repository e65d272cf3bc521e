extension Lint {
    /// Arguments that name a row, a user or a group: a uuid, or a name ending in `id`.
    static func idArguments(_ f: FunctionRow) -> [String] {
        let inner = f.name.drop { $0 != "(" }.dropFirst().dropLast()
        let types = inner.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return f.argumentNames.indices.filter { i in
            let n = f.argumentNames[i]
            return !n.isEmpty && ((i < types.count && types[i] == "uuid") || n.hasSuffix("id") || n.hasSuffix("ids"))
        }.map { f.argumentNames[$0] }
    }

    /// For a signed-in caller: INFO when the body ties every id argument, UPDATE and DELETE to
    /// the caller (the RPC pattern); otherwise the detail and fix name the argument left untied.
    static func scopeToCaller(_ f: FunctionRow, _ body: FunctionBody, helpers: Set<String>, detail: String)
        -> (String?, String, String?)
    {
        let ids = idArguments(f)
        guard let untied = body.untiedArguments(ids, lookedUp: f.argumentNames, helpers: helpers) else {
            return (nil, detail, nil)
        }
        guard let first = untied.first else {
            let what =
                ids.isEmpty
                ? "it takes no id argument"
                : "a condition ties each id argument (\(ids.joined(separator: ", "))) to them"
            return (
                "the caller's identity: \(what), and it updates or deletes only rows a condition ties to them", detail,
                nil
            )
        }
        let fn = AuditNames.function(f.schema, f.name)
        return (
            nil,
            detail
                + "; its body asks who the caller is but never ties its argument \(first) to them, so any signed-in user may pass any \(first)",
            "In \(fn), check that the caller may act on \(first) (look its row up with `user_id = auth.uid()` in the same condition, or call a membership check that raises), or `revoke execute on function \(fn) from public, authenticated;`."
        )
    }
}

extension Lint {
    /// The fix of a function listed at INFO: nothing to change unless `role` should not call it.
    static func reviewFix(_ f: FunctionRow, role: String) -> String {
        let fn = AuditNames.function(f.schema, f.name)
        return
            "Nothing to change if every \(role == "anon" ? "caller with the anon key" : "signed-in user") may call \(fn) as it is; otherwise `revoke execute on function \(fn) from public, \(role);` and grant it to the roles that need it."
    }
}
