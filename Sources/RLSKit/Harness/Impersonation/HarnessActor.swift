import Foundation
import Postgres

/// Who a check runs as. Users are real rows in auth.users, created inside the test
/// transaction the way GoTrue signs them up, so sign-up triggers fire.
struct HarnessActor: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case anon
        case user
        case serviceRole
        /// The connecting role itself, not impersonated: for looking at what API roles cannot see.
        case admin
        /// GoTrue's own role (supabase_auth_admin), as the Auth server acts.
        case authAdmin
    }

    var kind: Kind
    /// The label used in reports and scenario files: "A", "alice", "anon", "service_role".
    var name: String
    var id: UUID
    var email: String
    /// What the user typed at sign-up (raw_user_meta_data); users can edit it through the Auth API.
    var userMetadata: String
    /// Extra claims merged into the JWT, as a JSON object text.
    var extraClaims: String
    /// Keys the service set in raw_app_meta_data (users cannot write them), as a JSON object text.
    var appMetadata: String = "{}"
    /// A user who wrote a role's claim into their own user_metadata.
    var forged = false
    /// When the token expires; fixed per actor so its claims text is the same in every check.
    var expires = Int(Date().timeIntervalSince1970) + 3600

    static let anon = HarnessActor(kind: .anon, name: "anon")
    static let serviceRole = HarnessActor(kind: .serviceRole, name: "service_role")
    static let admin = HarnessActor(kind: .admin, name: "admin")
    static let authAdmin = HarnessActor(kind: .authAdmin, name: "auth_admin")

    init(
        kind: Kind, name: String, id: UUID = UUID(), email: String? = nil,
        userMetadata: String = "{}", extraClaims: String = "{}"
    ) {
        self.kind = kind
        self.name = name
        self.id = id
        self.email = email ?? "rlskit-\(HarnessActor.slug(name))-\(id.uuidString.prefix(8).lowercased())@example.test"
        self.userMetadata = userMetadata
        self.extraClaims = extraClaims
    }

    static func user(_ name: String, metadata: String = "{}", claims: String = "{}") -> HarnessActor {
        HarnessActor(kind: .user, name: name, userMetadata: metadata, extraClaims: claims)
    }

    /// Lower-case uuid text, as auth.uid()::text prints it.
    var uid: String { id.uuidString.lowercased() }

    /// The database role the API servers switch to.
    var role: String {
        switch kind {
        case .anon: "anon"
        case .user: "authenticated"
        case .serviceRole: "service_role"
        case .admin: "none"
        case .authAdmin: "supabase_auth_admin"
        }
    }

    /// The JWT claims PostgREST puts in request.jwt.claims; always with `role`.
    var claims: String {
        extraClaims == "{}" || kind != .user ? hookInput : HarnessActor.merge(hookInput, extraClaims)
    }

    /// The claims GoTrue would sign before a custom access-token hook adds its own.
    var hookInput: String {
        switch kind {
        case .anon, .serviceRole:
            return "{\"role\":\"\(role)\",\"iss\":\"supabase\"}"
        case .admin, .authAdmin:
            return ""
        case .user:
            let exp = expires
            let app = HarnessActor.merge(HarnessActor.platformAppMetadata, appMetadata)
            return
                "{\"aud\":\"authenticated\",\"role\":\"authenticated\",\"sub\":\"\(uid)\",\"email\":\(HarnessActor.json(email)),"
                + "\"exp\":\(exp),\"iat\":\(exp - 3600),\"is_anonymous\":false,\"aal\":\"aal1\","
                + "\"app_metadata\":\(app),\"user_metadata\":\(userMetadata)}"
        }
    }

    /// One statement that makes the transaction act as this caller, exactly as the data API
    /// does (SET LOCAL role and claims; legacy per-claim settings cleared). With `storage`, also
    /// what the Storage API sets for that operation.
    func impersonation(storage operation: String? = nil) -> String {
        var sets: [(String, String)] = [("role", role), ("request.jwt.claims", claims)]
        let legacySub = operation != nil && kind != .admin ? (kind == .user ? uid : "") : ""
        let legacyRole = operation != nil && kind != .admin && kind != .authAdmin ? role : ""
        sets += [
            ("request.jwt.claim.sub", legacySub), ("request.jwt.claim.role", legacyRole),
            ("request.jwt.claim.email", ""), ("request.jwt.claim", ""),
            ("storage.operation", operation ?? ""),
            ("storage.allow_delete_query", operation == nil ? "" : "true"),
        ]
        return "select "
            + sets.map {
                "set_config(\(SQL.literal($0.0)), \($0.0 == "role" ? Self.roleValue($0.1) : SQL.literal($0.1)), true)"
            }.joined(separator: ", ")
            + (operation.map { kind == .admin || kind == .authAdmin ? "" : Self.storageRequest($0, caller: self) } ?? "")
    }

    /// `role` as set_config's value: `none` (the connecting role) is null, which resets the role
    /// to the session's own: postgres where the harness logged in as authenticator, as PostgREST
    /// does (rlskit's throwaway server), else the login role itself.
    static func roleValue(_ role: String) -> String { role == "none" ? "null" : SQL.literal(role) }

    /// Shown in reports.
    var label: String {
        switch kind {
        case .user where userMetadata != "{}" && (name.hasPrefix("M") || forged):
            "\(name) (user_metadata \(userMetadata))"
        default: name
        }
    }

    /// What GoTrue writes into raw_app_meta_data at an email sign-up.
    static let platformAppMetadata = "{\"provider\":\"email\",\"providers\":[\"email\"]}"

    static func slug(_ s: String) -> String {
        String(
            s.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.prefix(16).map(
                Character.init))
    }

    static func json(_ s: String) -> String { JSON.string(s).rendered(pretty: false) }

    /// Top-level keys of `extra` replace those of `base` (both JSON objects).
    static func merge(_ base: String, _ extra: String) -> String {
        if extra == "{}" { return base }
        guard let b = try? JSON(parsing: base), let e = try? JSON(parsing: extra) else { return base }
        return b.merging(e).rendered(pretty: false)
    }
}

/// Creates users the way a sign-up does: GoTrue inserts into auth.users as supabase_auth_admin.
enum SignUp {
    /// Statements for one script: switch to GoTrue's role (when it exists), insert, switch back.
    /// `columns` is the set of auth.users columns present, so a real Supabase schema works too.
    static func script(
        _ users: [HarnessActor], columns: Set<String>, authAdminExists: Bool, metadata: SignUpMetadata = .init()
    ) -> String {
        guard !users.isEmpty else { return "" }
        let wanted: [(String, (HarnessActor) -> String)] = [
            ("instance_id", { _ in "'00000000-0000-0000-0000-000000000000'" }),
            ("id", { SQL.literal($0.uid) }),
            ("aud", { _ in "'authenticated'" }),
            ("role", { _ in "'authenticated'" }),
            ("email", { SQL.literal($0.email) }),
            ("encrypted_password", { _ in "''" }),
            ("email_confirmed_at", { _ in "now()" }),
            (
                "raw_app_meta_data",
                { SQL.literal(HarnessActor.merge(HarnessActor.platformAppMetadata, $0.appMetadata)) }
            ),
            ("raw_user_meta_data", { SQL.literal(metadata.filled($0)) }),
            ("created_at", { _ in "now()" }),
            ("updated_at", { _ in "now()" }),
            ("is_anonymous", { _ in "false" }),
        ]
        let cols = wanted.filter { columns.contains($0.0) }
        let rows = users.map { u in "(" + cols.map { $0.1(u) }.joined(separator: ", ") + ")" }
        // GoTrue logs in as supabase_auth_admin, whose search_path is `auth` (the platform's role
        // setting): a sign-up trigger resolves unqualified names there, and only there.
        var sql =
            authAdminExists
            ? "select set_config('rlskit.search_path', current_setting('search_path'), true),"
                + " set_config('role', 'supabase_auth_admin', true), set_config('search_path', \(SQL.literal(searchPath)), true);\n"
            : ""
        sql +=
            "insert into auth.users (\(cols.map(\.0).joined(separator: ", "))) values\n  "
            + rows.joined(separator: ",\n  ") + ";\n"
        if authAdminExists {
            sql +=
                "select set_config('role', null, true),"
                + " set_config('search_path', current_setting('rlskit.search_path'), true);\n"
        }
        return sql
    }

    /// The note when users cannot be signed up as GoTrue's role on a given database.
    static func notAsAuthAdmin(_ login: String) -> String {
        "note: test users are signed up as \(login), not as supabase_auth_admin (GoTrue's role): \(login) is not a member of"
            + " it, so sign-up triggers run with \(login)'s rights and search path; grant supabase_auth_admin to \(login),"
            + " or run on rlskit's throwaway server, to test them as GoTrue runs them"
    }

    /// GoTrue's search_path: its role's setting on the platform.
    static let searchPath = "auth"

    /// A trigger on auth.users: its name, when it fires, and its function's schema and name.
    struct Trigger: Sendable, Equatable {
        var name: String
        /// "after insert", "before insert or update", …
        var fires: String
        var schema: String
        var function: String
    }

    /// The project's own triggers on auth.users (none where the table is missing).
    static func triggers(_ conn: PostgresConnection) throws -> [Trigger] {
        try conn.query(
            """
            select t.tgname::text as name, n.nspname::text as schema, p.proname::text as function,
                   case when t.tgtype & 2 = 2 then 'before' when t.tgtype & 64 = 64 then 'instead of' else 'after' end
                   || ' ' || concat_ws(' or ', case when t.tgtype & 4 = 4 then 'insert' end,
                     case when t.tgtype & 16 = 16 then 'update' end, case when t.tgtype & 8 = 8 then 'delete' end)
                   as fires
            from pg_trigger t join pg_proc p on p.oid = t.tgfoid join pg_namespace n on n.oid = p.pronamespace
            where t.tgrelid = to_regclass('auth.users') and not t.tgisinternal order by 1
            """
        ).rows.map {
            Trigger(
                name: try $0.decode("name"), fires: try $0.decode("fires"), schema: try $0.decode("schema"),
                function: try $0.decode("function"))
        }
    }

    /// What a failed sign-up says, once for the run: which trigger and function, the server's
    /// message, and what to do; a failure outside any trigger says what the server said.
    static func failure(_ e: PostgresError, triggers: [Trigger] = []) -> String {
        let state = e.sqlState ?? "?????"
        guard let function = triggerFunction(e.context) else {
            return "creating the test users in auth.users failed: \(e.message) (\(state))"
        }
        let bare = function.prefix { $0 != "(" }
        let parts = bare.split(separator: ".", maxSplits: 1).map(String.init)
        let (schema, name) = parts.count == 2 ? (parts[0], parts[1]) : (nil, parts[0])
        let mine = triggers.filter { $0.function == name && (schema == nil || $0.schema == schema) }
        let shown = schema == nil && mine.count > 0 ? "\(mine[0].schema).\(function)" : function
        let which =
            mine.isEmpty
            ? "function \(shown), which runs on insert into auth.users"
            : "trigger " + mine.map { "\($0.name) (\($0.fires) on auth.users)" }.joined(separator: ", ")
                + ", function \(shown)"
        var text =
            "signing up the test users failed in \(which): \(e.message) (\(state))"
            + " — on Supabase every sign-up fails the same way (\"Database error saving new user\"): "
        if state == "42P01", let name = e.message.split(separator: "\"").dropFirst().first, name.contains(".") {
            text += "\(name) does not exist when users sign up; create it in a migration before the trigger's"
        } else if ["42P01", "42883", "42704"].contains(state) {
            text +=
                "GoTrue inserts as supabase_auth_admin with search_path \(searchPath), so qualify the names"
                + " (public.profiles) or give the function `set search_path = ''`"
        } else if APIChecks.isRefusal(e) {
            text += "the function raises this itself; make it let a plain email sign-up through"
        } else {
            text += "fix \(shown) so that a plain email sign-up, inserted as supabase_auth_admin, goes through"
        }
        return text
    }

    /// The outermost function of an error's context ("PL/pgSQL function public.f() line 3 at …"),
    /// the one the trigger called, with its arguments.
    static func triggerFunction(_ context: String?) -> String? {
        guard let context else { return nil }
        let lines = context.split(separator: "\n").map(String.init)
        for line in lines.reversed() {
            for lead in ["PL/pgSQL function ", "SQL function "] where line.hasPrefix(lead) {
                let rest = line.dropFirst(lead.count)
                if lead == "SQL function ", rest.hasPrefix("\"") {
                    return rest.dropFirst().prefix { $0 != "\"" } + "()"
                }
                guard let close = rest.firstIndex(of: ")") else { continue }
                return String(rest[...close])
            }
        }
        return nil
    }
}
