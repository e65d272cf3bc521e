/// A policy expression as the server deparses it (`pg_get_expr`), read just well enough to
/// answer the lints' questions: which auth functions it calls and whether they are wrapped in
/// `( SELECT … )`, what it compares with the caller's identity, its top-level conjuncts.
///
/// Normal form: casts dropped, redundant parentheses dropped, `( SELECT auth.uid() AS uid)`
/// read as `auth.uid()`, single spaces. So `((select auth.uid())::text = owner_id)` and
/// `(owner_id = auth.uid()::text)` both compare `owner_id` with the caller.
struct PolicyExpression: Sendable, Equatable {
    let text: String
    /// The normal form of the whole expression.
    let canonical: String
    /// Calls of auth.uid/jwt/role/email and current_setting; `wrapped` when inside a SELECT.
    let authCalls: [AuthCall]
    /// Things compared with the caller's identity (`owner`, `storage.foldername(name)[1]`).
    let bindings: Set<String>
    /// Those outside subqueries: the policy's own row compared with the caller.
    let rowBindings: Set<String>
    /// Calls a helper function whose body the expression does not show.
    let callsHelper: Bool
    /// Top-level AND parts, in normal form.
    let conjuncts: [String]
    /// Has an `auth.uid() IS NULL OR …` disjunct: true for every row when there is no session.
    let hasIdentityIsNullDisjunct: Bool
    let referencesUserMetadata: Bool
    /// Mentions who the caller is (uid, email, or any JWT claim), not just their role.
    let hasIdentity: Bool
    /// Every string constant.
    let stringLiterals: Set<String>
    /// String constants compared with `bucket_id`.
    let bucketIds: Set<String>
    /// Compares a part of the object name with a set a function returns (a membership check:
    /// `(storage.foldername(name))[1] in (select my_team_ids())`).
    let hasNameMembershipCheck: Bool
    /// Comparisons whose two sides are the same column (`m.org_id = m.org_id`).
    let selfComparisons: [String]
    let nodes: [Node]

    struct AuthCall: Sendable, Equatable {
        var function: String
        var wrapped: Bool
    }

    init(_ text: String) {
        self.text = text
        let nodes = Parser.parse(text)
        self.nodes = nodes
        hasIdentity = Scan.hasIdentity(nodes)
        canonical = Render.nodes(nodes)
        var calls: [AuthCall] = []
        Scan.authCalls(nodes, insideSelect: false, into: &calls)
        authCalls = calls
        var b = Set<String>()
        var isNullOr = false
        Scan.lists(nodes) { list in
            if let binding = Scan.binding(list) { b.insert(binding) }
            if Scan.identityIsNullDisjunct(list) { isNullOr = true }
        }
        bindings = b
        var rb = Set<String>()
        Scan.rowLists(nodes) { list in if let binding = Scan.binding(list) { rb.insert(binding) } }
        rowBindings = rb
        callsHelper = Scan.callsHelper(Render.nodes(nodes))
        bucketIds = Scan.bucketIds(nodes)
        hasNameMembershipCheck = Scan.hasNameMembershipCheck(nodes)
        selfComparisons = Scan.selfComparisons(nodes)
        hasIdentityIsNullDisjunct = isNullOr
        conjuncts = Scan.conjuncts(nodes).map { part in
            var p = part
            while p.count == 1, case .group(false, let inner) = p[0] { p = inner }
            return Render.nodes(p)
        }
        let tokens = Scan.tokens(nodes)
        stringLiterals = Set(tokens.compactMap { if case .string(let s) = $0 { s } else { nil } })
        referencesUserMetadata = tokens.contains {
            switch $0 {
            case .string(let s): return s == "user_metadata"
            case .ident(let s, _): return s.lowercased() == "raw_user_meta_data"
            default: return false
            }
        }
    }

    /// Ties the object to the caller: an identity test naming its name or owner, a membership
    /// set over the name, or a helper called with the name.
    var hasOwnerCheck: Bool {
        hasNameMembershipCheck || Scan.tiesObjectToCaller(nodes) || Scan.hasObjectHelperCall(nodes)
    }

    var isTrue: Bool { canonical == "true" || canonical == "TRUE" }

    static func == (a: PolicyExpression, b: PolicyExpression) -> Bool { a.text == b.text }
}
