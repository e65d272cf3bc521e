import Foundation
import Postgres

/// Intent guessed for tables no access file declares, as `rlskit init` would draft them, each `?`
/// answered with the most a design could mean: an inferred attack reports only what goes through
/// where that intent says no, so a guess errs on the side of allowing (never a false lockout).
extension AccessDraft {
    struct Inference: Sendable {
        /// An access file holding one block per inferred table and membership table.
        var text: String
        /// Per table (`public.notes`): what the intent rests on ("assuming `team_id` is the tenant").
        var assumptions: [String: [String]] = [:]
        /// Tables whose columns hold tokens, keys, secrets or emails: reads are attacked even when public.
        var sensitive: [String: [String]] = [:]
        /// Owner tables whose SELECT policies say by name that rows are their owner's: the policy's name.
        var privateByName: [String: String] = [:]
        /// Per table: the columns the intent rests on, the owner's and the tenant's (group) column.
        var owner: [String: String] = [:]
        var tenant: [String: String] = [:]
        /// Tables left out and why ("two user columns, sender_id and recipient_id: no owner assumed").
        var skipped: [String] = []
        var isEmpty: Bool { assumptions.isEmpty }
    }

    static let inferredPath = "inferred intent"

    /// Column names whose values a stranger must never read.
    static func sensitive(_ name: String) -> Bool {
        let words = name.lowercased().split(separator: "_").map(String.init)
        guard let last = words.last else { return false }
        if words.contains("email") || ["token", "secret", "password", "apikey", "passwd"].contains(last) {
            return true
        }
        let keyed = ["api", "private", "secret", "access", "signing", "encryption", "service", "webhook", "license"]
        return last == "key" && words.dropLast().contains(where: keyed.contains)
    }

    /// Words of columns a user may never set on their own row (lint 1009's, less the ones apps let
    /// users set: `status`, `score`).
    static let protectedWords: Set<String> = [
        "admin", "superuser", "staff", "moderator", "verified", "approved", "premium", "paid", "banned", "role",
        "roles", "plan", "tier", "balance", "credit", "credits", "permission", "permissions", "quota", "coins",
    ]

    /// Protected words that name content where a row is not a user's own record.
    static let contentWords: Set<String> = ["role", "roles"]

    /// Role labels ranked from the group owner's to the plain member's, when every label is known.
    static func rankedRoles(_ labels: [String]) -> [String] {
        let ranks = labels.map(roleRank)
        guard !ranks.contains(nil) else { return labels }
        return zip(labels, ranks).sorted { $0.1! < $1.1! }.map(\.0)
    }

    /// 0 for a group's owner, 3 for a plain member; nil for a word that is no role's name.
    static func roleRank(_ label: String) -> Int? {
        let s = label.lowercased()
        if ["owner", "creator", "superadmin", "super_admin", "primary_owner"].contains(s) { return 0 }
        if ["admin", "administrator", "manager", "maintainer"].contains(s) { return 1 }
        if ["editor", "moderator", "billing", "developer", "writer", "contributor"].contains(s) { return 2 }
        if ["member", "user", "viewer", "reader", "guest", "readonly", "read_only"].contains(s) { return 3 }
        return nil
    }

    /// An owner column: the only user column, else the one named like an owner.
    static func inferredOwner(_ t: Table) -> (column: Column?, note: String?) {
        let owners = t.columns.filter { $0.holdsUserID && Text.name($0.name) != nil }
        if owners.count <= 1 { return (owners.first, nil) }
        for name in ["user_id", "owner_id", "owner", "profile_id", "id", "author_id", "created_by"] {
            if let c = owners.first(where: { $0.name == name }) { return (c, nil) }
        }
        let names = owners.map { SQL.ident($0.name) }.joined(separator: " and ")
        return (nil, "\(t.qualifiedName): user columns \(names), none named like an owner: no owner assumed")
    }

    /// The answered access file for `tables` and `buckets` less those `declared` names
    /// (`public.notes`, `bucket avatars`).
    static func infer(
        tables: [Table], buckets: [Bucket] = [], storagePolicies: [Policy] = [], declared: Set<String>
    ) -> Inference {
        var out = Inference(text: "")
        var w = Writer()
        let members = tables.compactMap(membership)
        // A group needs its members block here: one declared elsewhere cannot be named from this file.
        let usable = members.filter { !declared.contains($0.table.qualifiedName) && m(roles: $0) != nil }
        var used: [String: Membership] = [:]
        for t in tables where !declared.contains(t.qualifiedName) {
            guard let name = Text.qualified(t.schema, t.name) else { continue }
            if members.contains(where: { $0.table.qualifiedName == t.qualifiedName }) { continue }
            let (owner, ownerNote) = inferredOwner(t)
            if let ownerNote { out.skipped.append(ownerNote) }
            var group: (column: String, members: Membership)?
            for mb in usable {
                guard let g = mb.group.references, Text.name(g.column) != nil else { continue }
                if g.schema == t.schema && g.table == t.name {
                    group = (g.column, mb)
                } else if group == nil, let c = t.columns.first(where: { $0.references.map { $0 == g } ?? false }) {
                    group = (c.name, mb)
                }
            }
            let secrets = t.columns.map(\.name).filter(sensitive)
            var notes: [String] = []
            w.lines += ["", "table \(name)"]
            if let owner {
                w.add("owner \(SQL.ident(owner.name))")
                notes.append("assuming `\(owner.name)` is the row's owner")
                out.owner[t.qualifiedName] = owner.name
            }
            if let group {
                w.add("group \(SQL.ident(group.column))")
                used[group.members.table.qualifiedName] = group.members
                out.tenant[t.qualifiedName] = group.column
                notes.append(
                    group.column == group.members.group.references?.column
                        && group.members.group.references?.table == t.name
                        ? "assuming each row is a group whose members are in \(group.members.table.qualifiedName)"
                        : "assuming `\(group.column)` is the tenant (members in \(group.members.table.qualifiedName))")
            }
            if !secrets.isEmpty {
                out.sensitive[t.qualifiedName] = secrets
                notes.append(
                    "assuming strangers may not read \(secrets.map { "`\($0)`" }.joined(separator: ", "))")
            }
            let isGroupTable =
                group.map {
                    $0.column == $0.members.group.references?.column && $0.members.group.references?.table == t.name
                } ?? false
            switch (owner != nil, group != nil) {
            case (_, true):
                w.add("read members")
                w.add(isGroupTable ? "insert signed-in" : "insert members")
                w.add("update members")
                w.add("delete members")
            case (true, false):
                let stated = secrets.isEmpty ? privateByName(t) : nil
                if let stated {
                    out.privateByName[t.qualifiedName] = stated
                    notes.append(
                        "assuming strangers may not read another user's row, as policy \"\(stated)\" says by name")
                }
                w.add("read " + (secrets.isEmpty && stated == nil ? "anyone" : "owner"))
                w.add("write owner")
            case (false, false):
                w.add("read " + (secrets.isEmpty ? "anyone" : "nobody"))
                // Anyone may add a row (a form entry, a sign-up); nobody changes what is there.
                w.add("insert anyone")
                w.add("update nobody")
                w.add("delete nobody")
                notes.append("assuming a catalog or form table: readable, never changed by API callers")
            }
            let keys = Set([owner?.name, group?.column].compactMap { $0 })
            // `role` is a privilege on a user's own record (one row per user: a profile) and in
            // membership tables; on content it is content (a chat message's `role`: user, assistant).
            let perUser = owner.map { o in t.uniqueKeys.contains([o.name]) } ?? false
            let protect = t.columns.filter { c in
                let word = String(c.name.lowercased().split(separator: "_").last ?? "")
                return c.writable && !keys.contains(c.name) && Text.name(c.name) != nil
                    && protectedWords.contains(word) && (perUser || !contentWords.contains(word))
            }
            if !protect.isEmpty && (owner != nil || group != nil) {
                w.add("protect " + protect.map { SQL.ident($0.name) }.joined(separator: ", "))
                notes.append("assuming users may not set \(protect.map { "`\($0.name)`" }.joined(separator: ", "))")
            }
            out.assumptions[t.qualifiedName] = notes
        }
        for (key, mb) in used.sorted(by: { $0.key < $1.key }) {
            guard let name = Text.qualified(mb.table.schema, mb.table.name), let roles = m(roles: mb) else { continue }
            w.lines += ["", "members \(name)"]
            w.add("group \(SQL.ident(mb.group.name))")
            w.add("user \(SQL.ident(mb.user.name))")
            var notes = ["assuming `\(mb.group.name)` is the group and `\(mb.user.name)` the member"]
            var managers = "members"
            if let r = mb.role, roles.count > 1 {
                w.add("role \(SQL.ident(r.name))")
                w.add("roles " + roles.joined(separator: " "))
                managers = "members with role " + roles.dropLast().joined(separator: ", ")
                notes.append("assuming `\(roles[0])` owns a group and `\(roles.last!)` is a plain member")
            }
            w.add("read members")
            w.add("add " + managers)
            w.add("remove " + managers)
            w.add("leave members")
            if mb.role != nil && roles.count > 1 { w.add("change-role " + managers) }
            out.assumptions[key] = notes
        }
        for b in buckets where !declared.contains("bucket " + b.id) {
            inferBucket(b, policies: storagePolicies, members: members, &w, &out)
        }
        out.text = w.lines.map(Text.oneLine).joined(separator: "\n") + "\n"
        return out
    }

    /// A bucket of one folder per user (or of objects owned by their uploader): anyone signed in
    /// may upload and, in a private bucket, list; only the owner replaces, moves or deletes. Team
    /// folders are left out: which folder is whose group is not told by the catalog.
    static func inferBucket(
        _ b: Bucket, policies: [Policy], members: [Membership], _ w: inout Writer, _ out: inout Inference
    ) {
        guard let id = Text.word(b.id) else { return }
        let literal = SQL.literal(b.id)
        let texts = policies.flatMap { [$0.using, $0.check].compactMap { $0 } }.filter { $0.contains(literal) }
        if texts.contains(where: { t in members.contains { t.contains($0.table.name) } }) {
            return out.skipped.append(
                "bucket \(b.id): its policies read a membership table: team folders are not inferred")
        }
        let byFolder = texts.isEmpty || texts.contains { $0.contains("foldername") || $0.contains("split_part") }
        w.lines += ["", "bucket \(id)"]
        w.add("ownership " + (byFolder ? "folder" : "owner-id"))
        w.add(b.isPublic ? "read public" : "read signed-in")
        if b.isPublic { w.add("list anyone") }
        w.add("upload signed-in")
        w.add("overwrite owner")
        w.add("move owner")
        w.add("delete owner")
        out.assumptions["bucket " + b.id] = [
            byFolder
                ? "assuming an object's first folder is its owner's user id"
                : "assuming an object belongs to its uploader (`owner_id`)",
            "assuming only the owner replaces, moves or deletes an object"
                + (b.isPublic ? "" : ", and anon reads nothing in this private bucket"),
        ]
    }

    /// A membership's roles ranked owner first; empty when its role column's values are unknown.
    static func m(roles mb: Membership) -> [String]? {
        guard let r = mb.role else { return [] }
        let labels = r.labels.filter { Text.listWord($0) != nil }
        guard labels.count == r.labels.count, !labels.isEmpty else { return [] }
        return rankedRoles(labels)
    }

    /// Text role columns of membership tables take the values their check constraints list
    /// (`check (role in ('owner', 'member'))`), as an enum's labels, when every value is a role name.
    static func withCheckedRoles(_ conn: PostgresConnection, _ tables: [Table]) throws -> [Table] {
        var out = tables
        for (i, t) in tables.enumerated() {
            guard let mb = membership(t), let r = mb.role, r.labels.isEmpty else { continue }
            let rows = try conn.query(
                """
                select pg_get_constraintdef(c.oid) as def from pg_constraint c
                  join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any (c.conkey)
                 where c.contype = 'c' and c.conrelid = to_regclass($1) and a.attname = $2
                """, [t.qualifiedName, r.name]
            ).rows
            let defs = try rows.map { try $0.decode("def", as: String.self) }
            let values = defs.flatMap(quotedValues)
            guard values.count > 1, values.allSatisfy({ roleRank($0) != nil }),
                let c = out[i].columns.firstIndex(where: { $0.name == r.name })
            else { continue }
            var seen = Set<String>()
            out[i].columns[c].labels = values.filter { seen.insert($0).inserted }
        }
        return out
    }

    /// The string literals of a constraint's text (`'owner'::text` → owner).
    static func quotedValues(_ def: String) -> [String] {
        var out: [String] = []
        var rest = Substring(def)
        while let open = rest.firstIndex(of: "'") {
            var value = ""
            var i = rest.index(after: open)
            while i < rest.endIndex {
                if rest[i] == "'" {
                    let next = rest.index(after: i)
                    if next < rest.endIndex && rest[next] == "'" {
                        value.append("'")
                        i = rest.index(after: next)
                        continue
                    }
                    break
                }
                value.append(rest[i])
                i = rest.index(after: i)
            }
            out.append(value)
            rest = i < rest.endIndex ? rest[rest.index(after: i)...] : ""
        }
        return out
    }
}
