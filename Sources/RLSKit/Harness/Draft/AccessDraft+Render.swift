import Foundation

/// The draft's text: one block per RLS table, membership table and bucket; facts as settings,
/// intents as `?`, today's policies as comments below each block.
extension AccessDraft {
    struct Writer {
        var lines: [String] = []
        var questions = 0

        /// An indented setting with its note in a column of its own.
        mutating func add(_ setting: String, _ note: String = "") {
            let text = "  " + setting
            lines.append(
                note.isEmpty
                    ? text : text.padding(toLength: max(40, text.count + 1), withPad: " ", startingAt: 0) + "# " + note)
        }

        mutating func ask(_ key: String, _ note: String) {
            add(key + " ?", note)
            questions += 1
        }

        mutating func quote(_ policies: [Policy], _ heading: String) {
            guard !policies.isEmpty else { return add("# no policies today\(heading.isEmpty ? "" : " " + heading)") }
            lines.append(
                "  # policies today, to help you answer (not expectations)\(heading.isEmpty ? "" : " " + heading):")
            for p in policies {
                // Every kind of line break ends a part ("\r\n" is one Character); the rest is escaped on output.
                for (i, part) in AccessDraft.quoted(p).split(
                    omittingEmptySubsequences: false, whereSeparator: \.isNewline
                )
                .enumerated() {
                    lines.append((i == 0 ? "  #   " : "  #     ") + part)
                }
            }
        }
    }

    static let header = """
        # A first access file, drafted by 'rlskit init' from the database's catalog.
        # Each '?' is a question only you can answer: who SHOULD be able to do it. Today's policies
        # are quoted below each block to help, never taken as the answer: they are what this file tests.
        # rlskit refuses to run the file while a '?' is left. Then: rlskit test
        """

    static func render(
        schemas: [String], tables: [Table], storagePolicies: [Policy], buckets: [Bucket],
        helpers: [String: String] = [:], unread: [String] = []
    ) -> Draft {
        var w = Writer(lines: header.split(separator: "\n").map(String.init))
        w.lines.append("")
        let named = schemas.compactMap(Text.name)
        if !named.isEmpty { w.lines.append("expose " + named.joined(separator: " ")) }
        for s in schemas where Text.name(s) == nil {
            w.lines.append("# exposed schema \(Text.display(s)) is left out: an access file cannot name it")
        }
        let rolesAt = w.lines.count
        var draft = Draft(text: "")
        let members = tables.compactMap(membership)
        let groupTables = Set(members.compactMap { $0.group.references.map { SQL.qualified($0.schema, $0.table) } })
        let grouped = Set(
            members.map(\.table.qualifiedName) + groupTables
                + tables.filter { t in
                    t.columns.contains { c in
                        c.references.map { groupTables.contains(SQL.qualified($0.schema, $0.table)) } ?? false
                    }
                }.map(\.qualifiedName))
        for t in markOwnersThrough(tables, grouped: grouped) {
            w.lines.append("")
            guard let name = Text.qualified(t.schema, t.name) else {
                w.lines.append(
                    "# skipped table \(Text.display(t.schema)).\(Text.display(t.name)): an access file cannot name it")
                continue
            }
            if let m = members.first(where: { $0.table.schema == t.schema && $0.table.name == t.name }) {
                membersBlock(m, name, &w)
                draft.memberships += 1
            } else {
                tableBlock(t, name, members: members, &w)
                draft.tables += 1
            }
        }
        for u in unread {
            w.lines += ["", "# \(u): write its 'bucket' blocks by hand"]
        }
        for b in buckets {
            w.lines.append("")
            guard let id = Text.word(b.id) else {
                w.lines.append(
                    "# skipped bucket \(Text.oneLine(SQL.display(b.id, always: true))): an access file cannot name it")
                continue
            }
            bucketBlock(b, id, members: members, policies: storagePolicies, &w)
            draft.buckets += 1
        }
        let claims = claimReaders(tables: tables, storagePolicies: storagePolicies, buckets: buckets)
        let reads = claimSources(tables: tables, storagePolicies: storagePolicies, helpers: helpers)
        if !claims.isEmpty || !reads.isEmpty {
            var roles = Writer(lines: claimHint(claims))
            roleSkeletons(reads, &roles)
            w.lines.insert(contentsOf: roles.lines, at: rolesAt)
            w.questions += roles.questions
        }
        // The one exit: whatever catalog text a line holds, it stays on that line.
        draft.text = w.lines.map(Text.oneLine).joined(separator: "\n") + "\n"
        draft.unread = unread
        draft.questions = w.questions
        return draft
    }

    /// `name`: the table as `Text.qualified` writes it.
    static func tableBlock(_ t: Table, _ name: String, members: [Membership], _ w: inout Writer) {
        w.lines.append("table \(name)")
        // `id` first: a profiles table keyed by the user's id. Only columns a line can name.
        let owners = t.columns.filter { $0.holdsUserID && Text.name($0.name) != nil }
            .sorted { ($0.name == "id" ? 0 : 1) < ($1.name == "id" ? 0 : 1) }
        // The group table itself (its key is what memberships point at), then columns pointing at one.
        var groups: [(column: String, note: String, roles: [String])] = []
        for m in members {
            guard let g = m.group.references, Text.name(g.column) != nil else { continue }
            // Only labels a `who` line can name are offered as answers.
            let roles = (m.role?.labels ?? []).filter { Text.listWord($0) != nil }
            if g.schema == t.schema && g.table == t.name {
                groups.append((g.column, "the group \(m.table.qualifiedName) points at", roles))
            }
            for c in t.columns where c.references.map({ $0 == g }) ?? false {
                groups.append(
                    (
                        c.name,
                        "references \(SQL.qualified(g.schema, g.table))(\(SQL.ident(g.column))), a group of \(m.table.qualifiedName)",
                        roles
                    ))
            }
        }
        if owners.count == 1 {
            w.add("owner \(SQL.ident(owners[0].name))", owners[0].userVia ?? "")
        } else if owners.count > 1 {
            w.ask(
                "owner",
                "the column holding the owner's user id: " + owners.map { SQL.ident($0.name) }.joined(separator: " | ")
                    + " (or delete the line)")
        }
        if groups.count == 1 {
            w.add("group \(SQL.ident(groups[0].column))", groups[0].note)
        } else if groups.count > 1 {
            w.ask(
                "group",
                "the column holding the row's group: " + groups.map { SQL.ident($0.column) }.joined(separator: " | ")
                    + " (or delete the line)")
        }
        let parent = owners.isEmpty && groups.isEmpty ? t.ownerThrough : nil
        if let p = parent, let table = Text.qualified(p.schema, p.table) {
            w.add("owner \(SQL.ident(p.column)) through \(table)", p.note)
        } else if owners.isEmpty && groups.isEmpty {
            w.add("# no column references auth.users or a group: a catalog or a service table?")
        }
        var choices = ["anyone", "signed-in"]
        if !owners.isEmpty || parent != nil { choices.append("owner") }
        if !groups.isEmpty {
            choices.append("members")
            let roles = groups.flatMap(\.roles)
            if !roles.isEmpty {
                choices.append(
                    "members with role "
                        + roles.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.joined(
                            separator: ", "))
            }
        }
        choices.append("nobody")
        w.ask("read", "who may read: " + choices.joined(separator: " | "))
        w.ask("write", "who may insert, update and delete (or insert/update/delete lines), the same choices")
        let keys = Set(owners.map(\.name) + groups.map(\.column))
        let privileged = t.columns.filter { $0.privileged && $0.writable && !keys.contains($0.name) }
        if !privileged.isEmpty && (!owners.isEmpty || !groups.isEmpty) {
            w.ask(
                "protect",
                "columns a user may not set on their own row, named like roles, flags or money: "
                    + privileged.map { SQL.ident($0.name) }.joined(separator: ", ") + " (or delete the line)")
        }
        w.quote(t.policies, "")
    }

    /// `name`: the table as `Text.qualified` writes it; `membership` chose only columns a line can name.
    static func membersBlock(_ m: Membership, _ name: String, _ w: inout Writer) {
        let g = m.group.references!
        let groupTable = SQL.qualified(g.schema, g.table)
        w.lines.append("members \(name)")
        w.add("group \(SQL.ident(m.group.name))", "references \(groupTable)(\(SQL.ident(g.column)))")
        w.add("user \(SQL.ident(m.user.name))", m.user.userVia ?? "")
        var who = "members | nobody"
        if let r = m.role {
            w.add("role \(SQL.ident(r.name))", r.type)
            if r.labels.isEmpty || r.labels.contains(where: { Text.listWord($0) == nil }) {
                let labels =
                    r.labels.isEmpty ? "" : " (" + r.labels.map { Text.display($0) }.joined(separator: ", ") + ")"
                w.ask(
                    "roles",
                    "the values of \(SQL.ident(r.name))\(labels): the group owner's first, the plain member's last")
            } else {
                w.add(
                    "roles " + r.labels.joined(separator: " "),
                    "the enum's values: put the group owner's first, the plain member's last")
            }
            who = "members | members with role R | nobody"
        }
        w.ask("read", "who reads membership rows: " + who)
        w.ask("add", "who adds others to a group: " + who)
        w.ask("remove", "who removes others from a group: " + who)
        w.ask("leave", "may a member leave (remove their own membership): members | nobody")
        if m.role != nil { w.ask("change-role", "who changes others' roles: " + who) }
        w.quote(m.table.policies, "")
    }

    /// A policy as one line of SQL-like text (several when an expression spans lines).
    static func quoted(_ p: Policy) -> String {
        let command = ["r": "select", "a": "insert", "w": "update", "d": "delete", "*": "all"][p.command] ?? p.command
        var s = "policy " + SQL.ident(p.name, always: true) + (p.permissive ? "" : " as restrictive")
        s += " for \(command) to " + p.roles.map { SQL.ident($0) }.joined(separator: ", ")
        if let u = p.using { s += " using (\(u))" }
        if let c = p.check { s += " with check (\(c))" }
        return s
    }

    /// Blocks whose policies read JWT claims in their own text: a role may give rights there.
    static func claimReaders(tables: [Table], storagePolicies: [Policy], buckets: [Bucket]) -> [String] {
        func reads(_ p: Policy) -> Bool {
            [p.using, p.check].contains { e in
                e.map { $0.contains("auth.jwt()") || $0.contains("request.jwt.claim") } ?? false
            }
        }
        let named = tables.filter { $0.policies.contains(where: reads) }.map(\.qualifiedName)
        let storage = storagePolicies.filter(reads)
        return named
            + buckets.filter { b in
                storage.contains {
                    ($0.using ?? "").contains(SQL.literal(b.id)) || ($0.check ?? "").contains(SQL.literal(b.id))
                }
            }.map { "bucket \($0.id)" }
    }

    /// How to declare such a role, as a comment: whether one is meant is the user's answer.
    static func claimHint(_ blocks: [String]) -> [String] {
        [
            "",
            (blocks.isEmpty
                ? "# Functions today's policies call read JWT claims."
                : "# Policies of \(blocks.joined(separator: ", ")) read JWT claims.")
                + " A role the platform gives through",
            "# a claim users cannot write is declared once, then named in a who (e.g. 'update owner or admin'):",
            "#   role admin", "#     claim app_metadata.role = admin",
        ]
    }
}
