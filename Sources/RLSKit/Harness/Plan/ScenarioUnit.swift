import Foundation

extension Scenario {
    /// The scenario as one unit: users signed up first, then each step in its own savepoint
    /// (a failing step is undone alone, the rest builds on what went before), all rolled back.
    func unit(suite: String) -> HarnessUnit {
        // Fresh ids per run: nothing can collide with rows of an earlier (rolled back) run.
        let users = self.users.map {
            HarnessActor(kind: .user, name: $0.name, userMetadata: $0.userMetadata, extraClaims: $0.extraClaims)
        }
        func fill(_ s: String) -> String {
            var out = s
            for u in users {
                out = out.replacingOccurrences(of: "{\(u.name)}", with: u.uid).replacingOccurrences(
                    of: "{\(u.name).email}", with: u.email)
            }
            return out
        }
        let checks = steps.map { st -> PolicyCheck in
            let actor = users.first { $0.name == st.actor } ?? Scenario.builtIn(st.actor)
            let text = fill(st.text)
            let (sql, op) = Scenario.storageSQL(text, actor: actor) ?? (text, nil)
            let expectations = st.expectations.map { e -> Expectation in
                switch e {
                case .value(let v): .value(v.map(fill))
                case .values(let v): .values(v.map { $0.map(fill) })
                case .row(let v): .row(v.map { $0.map(fill) })
                default: e
                }
            }
            let firstWord = sql.split(whereSeparator: { $0 == " " || $0 == "\n" }).first.map { $0.lowercased() } ?? ""
            return PolicyCheck(
                suite: suite, actor: actor.name, operation: op.map { _ in "storage" } ?? firstWord,
                name: title + ": " + oneLine(st.text), statements: [actor.impersonation(storage: op), sql],
                expectations: expectations, location: st.location)
        }
        return HarnessUnit(suite: suite, users: users, checks: checks, isolation: .keepSuccesses, location: location)
    }

    static func builtIn(_ name: String) -> HarnessActor {
        switch name {
        case "anon": .anon
        case "service_role": .serviceRole
        case "auth_admin": .authAdmin
        default: .admin
        }
    }

    /// `upload BUCKET NAME` and `remove BUCKET NAME`, as the Storage API performs them.
    static func storageSQL(_ text: String, actor: HarnessActor) -> (String, String)? {
        let parts = text.split(separator: " ").map(String.init)
        guard parts.count == 3 else { return nil }
        let bucket = SQL.literal(parts[1])
        let name = SQL.literal(parts[2])
        let owner = actor.kind == .user ? SQL.literal(actor.uid) : "null"
        switch parts[0] {
        case "upload":
            // The metadata of the Storage API's permission check, as the bucket matrix sends it.
            let meta = BucketUploads.checked(
                mimetype: BucketUploads.type(ofName: parts[2]), size: BucketUploads.defaultSize)
            return (
                "insert into storage.objects (bucket_id, name, owner, owner_id, version, metadata) values ("
                    + "\(bucket), \(name), \(owner)::uuid, \(owner), gen_random_uuid()::text, \(SQL.literal(meta))::jsonb)",
                "storage.object.upload"
            )
        case "remove":
            return (
                "delete from storage.objects where name = \(name) and bucket_id = \(bucket) returning *",
                "storage.object.delete"
            )
        default:
            return nil
        }
    }

    func oneLine(_ s: String) -> String {
        let l = s.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(
            separator: " ")
        return l.count > 90 ? String(l.prefix(89)) + "…" : l
    }
}
