import Foundation

/// Parent rows a table's foreign keys need, found through the catalog: chains and composite
/// keys, each parent's own NOT NULL columns filled as the seeder fills them, its columns that
/// reference auth.users set to the user who owns the child row. Parents are inserted per user
/// in the unit's setup; their key values are kept in transaction-local settings, so every
/// child row of that user (seeded, or inserted by a check as any role) references them.
/// A foreign key that holds a value the matrix fixes (`(material_id, org_id)` with the group
/// in org_id) gets a parent with that value: the parent belongs to the same group.
struct ParentPlan: Sendable {
    enum Source: Sendable, Equatable {
        case owner
        case seed(String)
        /// A value the matrix fixes (the row's group), carried into parents.
        case group(String)
        /// A referenced column of the parent inserted as `nodes[node]`.
        case parent(node: Int, column: String)

        /// The same for every row of the user: the owner, a fixed value or a parent's key.
        var isFixed: Bool { if case .seed = self { false } else { true } }
        var isGroup: Bool { if case .group = self { true } else { false } }
    }

    struct Node: Sendable {
        var table: TableInfo
        var sources: [String: Source]
        /// Columns children reference: each kept in a setting after the insert.
        var keys: [String] = []
        /// A unique key made only of owner or parent values: such a row may exist already
        /// (a profile a sign-up trigger made), and is then reused.
        var reuseKey: [String]?
        /// A column rlskit cannot fill: the row is only looked up by `reuseKey`, never inserted.
        var lookup: String?
    }

    /// Parents in insert order (a parent before its children).
    var nodes: [Node] = []
    /// Sources of the table's own columns that come from parents.
    var root: [String: Source] = [:]
    /// Why the parents cannot be made, or nil.
    var problem: String?
    /// Set when a parent holds a fixed value: the plan's settings are then named for those
    /// values, so that parents made for G1 and for G2 keep their keys apart.
    private(set) var groupTag = ""
    /// The parents hold a fixed value: the plan is made once per group.
    var isGroupBound: Bool { !groupTag.isEmpty }
    /// The root table's reachable parents and declared tables (parents' own maps are empty).
    private let catalog: [String: TableInfo]
    private let declared: [String: TableInfo.Declared]

    init(table: TableInfo, intent: TableIntent, fixed: [String: String] = [:]) {
        catalog = table.parents
        declared = table.declared
        var seeds = intent.seeds.map { (column: $0.column, expression: $0.expression) }
        seeds.removeAll { table.column($0.column) == nil }
        var pins: [String: Source] = [:]
        if intent.ownerThrough.isEmpty, table.column(intent.owner) != nil { pins[intent.owner] = .owner }
        for s in seeds { pins[s.column] = .seed(s.expression) }
        // Values the matrix decides (a row's group) are never made through a parent; a parent
        // that shares one with the row takes it.
        for (column, value) in fixed where table.column(column) != nil { pins[column] = .group(value) }
        let seeded = Set(seeds.map(\.column))
        let owning = Self.ownerKey(table, owner: intent.owner, through: intent.ownerThrough)?.columns ?? []
        // A nullable key a policy reads gets a parent too (left NULL, a check on it passes
        // vacuously), where one can be made; the owner's key always does.
        let read = Self.policyReadKeys(table).subtracting(seeded).subtracting(fixed.keys)
        let start = self
        if !read.isEmpty, let src = sources(table, pins: pins, seeded: seeded, path: [], force: read.union(owning)) {
            root = src.filter { $0.value.isFixed && $0.value != .owner && !$0.value.isGroup }
            tagGroups()
            return
        }
        (nodes, problem) = (start.nodes, start.problem)
        if let src = sources(table, pins: pins, seeded: seeded, path: [], force: Set(owning)) {
            root = src.filter { $0.value.isFixed && $0.value != .owner && !$0.value.isGroup }
        }
        tagGroups()
    }

    /// A short name of the fixed values the parents hold (FNV-1a), or "" when none does.
    private mutating func tagGroups() {
        var values: [String] = []
        for n in nodes {
            for (_, s) in n.sources { if case .group(let v) = s { values.append(v) } }
        }
        guard !values.isEmpty else { return }
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in values.sorted().joined(separator: "\u{1}").utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        groupTag = "_g" + String(h, radix: 36)
    }

    /// The foreign key from `owner` to `through` (`owner shop_id through public.shops`).
    static func ownerKey(_ t: TableInfo, owner: String, through: String) -> TableInfo.ForeignKey? {
        guard !through.isEmpty else { return nil }
        return t.foreignKeys.first { $0.refName == through && $0.columns.contains(owner) }
    }

    /// Columns of nullable foreign keys to other tables that the table's policies name.
    static func policyReadKeys(_ t: TableInfo) -> Set<String> {
        let candidates = t.foreignKeys.filter { !$0.toAuthUsers }.flatMap(\.columns)
        guard !candidates.isEmpty else { return [] }
        var named: Set<String> = []
        for text in t.policyTexts {
            let s = Array(text.unicodeScalars)
            for tok in SQLLexer.tokens(s) where tok.kind == .word || tok.kind == .quotedName {
                var w = String(String.UnicodeScalarView(s[tok.start..<tok.end]))
                if tok.kind == .quotedName { w = String(w.dropFirst().dropLast()) } else { w = w.lowercased() }
                named.insert(w)
            }
        }
        var out: Set<String> = []
        for fk in t.foreignKeys where !fk.toAuthUsers && fk.columns.contains(where: named.contains) {
            out.formUnion(fk.columns)
        }
        return out
    }

    static func needsValue(_ c: TableInfo.ColumnInfo) -> Bool { c.writable && c.notNull && !c.hasDefault }

    /// Sources for `t`'s columns: `pins` first, then a parent per foreign key that must hold.
    /// `path` lists the foreign keys followed to reach `t`, for naming a cycle.
    private mutating func sources(
        _ t: TableInfo, pins: [String: Source], seeded: Set<String>, path: [(table: String, columns: String)],
        force: Set<String> = []
    ) -> [String: Source]? {
        var src = pins
        // Keys that hold a fixed value first: the parent they make is then the one a plain key
        // to the same row (`material_id` alone) finds satisfied.
        let keys = t.foreignKeys.filter { fk in fk.columns.contains { pins[$0]?.isGroup == true } }
        for fk in keys + t.foreignKeys.filter({ fk in !fk.columns.contains { pins[$0]?.isGroup == true } }) {
            let cols = fk.columns.compactMap { t.column($0) }
            guard cols.count == fk.columns.count else { continue }
            if fk.toAuthUsers {
                // A parent belongs to the user who owns the child row.
                if !path.isEmpty { for c in cols where c.writable && src[c.name] == nil { src[c.name] = .owner } }
                continue
            }
            // The user's seed lines win: a foreign key with a seeded column is theirs to satisfy.
            if cols.contains(where: { seeded.contains($0.name) }) { continue }
            // Every column the matrix's own (the group, its owner): the row it names is the matrix's.
            if cols.contains(where: { src[$0.name]?.isGroup == true }),
                cols.allSatisfy({ src[$0.name]?.isGroup == true || src[$0.name] == .owner })
            {
                continue
            }
            // A column left NULL (or to its default) means no parent row is needed (MATCH SIMPLE).
            // Unless the key is forced: the owner's parent, or a key a policy reads.
            if !cols.contains(where: { force.contains($0.name) }),
                cols.contains(where: { src[$0.name] == nil && !Self.needsValue($0) })
            {
                continue
            }
            if satisfied(fk, src) { continue }
            let here = (table: t.qualifiedName, columns: fk.columns.joined(separator: ", "))
            if let start = (path + [here]).firstIndex(where: { $0.table == fk.refName }) {
                let all = path + [here]
                let steps = all[start...].map { "\($0.table)(\($0.columns))" }
                let entry = all.count > 1 ? all[0] : here
                let into = all.count > 1 ? all[1].table : fk.refName
                problem =
                    "\(entry.table)(\(entry.columns)) needs a row in \(into), but \(steps.joined(separator: " → ")) → \(fk.refName) is a cycle of NOT NULL foreign keys, so no row can be inserted first: declare 'seed \(entry.columns.split(separator: ",")[0]) = <expression>' naming an existing row, or make one of these columns nullable"
                return nil
            }
            guard let parent = catalog[fk.refName], parent.exists else {
                problem =
                    "column \(fk.columns.joined(separator: ", ")) references \(fk.refName), which rlskit cannot read: declare 'seed \(fk.columns[0]) = <expression>' in the access file"
                return nil
            }
            var parentPins: [String: Source] = [:]
            for (c, rc) in zip(fk.columns, fk.refColumns) {
                switch src[c] {
                case .owner?, .parent?, .group?: parentPins[rc] = src[c]
                default: break
                }
            }
            guard let id = node(parent, pins: parentPins, path: path + [here], child: here) else { return nil }
            for (c, rc) in zip(fk.columns, fk.refColumns) where src[c] == nil { src[c] = .parent(node: id, column: rc) }
            for rc in fk.refColumns where !nodes[id].keys.contains(rc) { nodes[id].keys.append(rc) }
        }
        return src
    }

    /// Every column already comes from one parent of the referenced table, column for column.
    private func satisfied(_ fk: TableInfo.ForeignKey, _ src: [String: Source]) -> Bool {
        let ids = zip(fk.columns, fk.refColumns).map { c, rc -> Int? in
            if case .parent(let id, let col)? = src[c], col == rc, nodes[id].table.qualifiedName == fk.refName {
                return id
            }
            return nil
        }
        return !ids.contains(nil) && Set(ids).count == 1
    }

    private mutating func node(
        _ t: TableInfo, pins: [String: Source], path: [(table: String, columns: String)],
        child: (table: String, columns: String)
    ) -> Int? {
        var pins = pins
        let intent = declared[t.qualifiedName]
        // A declared table's owner and seed lines hold here too; seeds win over derived values.
        if let owner = intent?.owner, intent?.through.isEmpty == true, let c = t.column(owner), c.writable,
            pins[owner] == nil
        {
            pins[owner] = .owner
        }
        let owning = intent.flatMap { Self.ownerKey(t, owner: $0.owner, through: $0.through)?.columns } ?? []
        var seeded = Set<String>()
        for s in intent?.seeds ?? [] where t.column(s.column) != nil && pins[s.column] == nil {
            pins[s.column] = .seed(s.expression)
            seeded.insert(s.column)
        }
        for (name, _) in pins where t.column(name)?.writable != true {
            problem =
                "\(child.table)(\(child.columns)) needs a row in \(t.qualifiedName) with \(name) set, but \(name) is generated or an identity column: declare 'seed \(child.columns) = <expression>' in the access file"
            return nil
        }
        guard let src = sources(t, pins: pins, seeded: seeded, path: path, force: Set(owning)) else { return nil }
        let fixed = Set(src.filter { $0.value.isFixed }.keys)
        let reuse = t.uniqueKeys.first { !$0.isEmpty && $0.allSatisfy(fixed.contains) }
        let unfilled = t.columns.first {
            Self.needsValue($0) && src[$0.name] == nil && Seeder.value(for: $0, n: 0) == nil
        }
        // A row found by the owner's key (a profile made at sign-up) needs no values: look it up only.
        if let c = unfilled, reuse == nil {
            problem =
                "\(child.table)(\(child.columns)) needs a row in \(t.qualifiedName), whose column \(c.name) of type \(c.type) rlskit cannot fill: declare 'seed \(child.columns.split(separator: ",")[0]) = <expression>' in the access file"
            return nil
        }
        nodes.append(Node(table: t, sources: src, reuseKey: reuse, lookup: unfilled.map { $0.name }))
        return nodes.count - 1
    }
}

extension ParentPlan {
    /// The setting holding column `column` of parent `node` for the user `owner`.
    func setting(_ node: Int, _ column: String, owner: String) -> String {
        let k = nodes[node].table.columns.firstIndex { $0.name == column } ?? 0
        return "rlskit.parent\(node)_\(k)_" + owner.filter { $0.isLetter || $0.isNumber } + groupTag
    }

    /// The SQL value of `source` in a row of `column` for the user `owner`; `user` is who the
    /// row names as its user where `owner` is anon (no row of auth.users).
    func value(_ source: Source, _ column: TableInfo.ColumnInfo, owner: String, n: Int, user: String? = nil) -> String {
        let user = user ?? owner
        switch source {
        case .owner:
            return user == HarnessActor.anon.uid ? "null::" + column.type : SQL.literal(user) + "::" + column.type
        case .group(let e): return e
        case .seed(let e):
            return e.replacingOccurrences(of: "{owner}", with: owner).replacingOccurrences(of: "{n}", with: String(n))
        case .parent(let id, let col):
            return "current_setting(\(SQL.literal(setting(id, col, owner: owner))))::"
                + column.type
        }
    }

    /// Inserts every parent for each user, as service_role where it may insert, else as the
    /// connecting role, with the user's id as the JWT's `sub`. `round` numbers the groups a
    /// group-bound plan is made for, so that their derived values (unique names) differ.
    func script(owners: [String], round: Int = 0) -> String {
        guard !nodes.isEmpty else { return "" }
        var sql = ""
        var role = "none"
        for (i, owner) in owners.enumerated() {
            // Anon's parents are rows a user made (anon is no row of auth.users): the first user's.
            let user = owner == HarnessActor.anon.uid ? owners.first { $0 != owner } ?? owner : owner
            // auth.uid() is the owner while its parents are made (defaults and triggers read it).
            sql += "select set_config('request.jwt.claims', \(SQL.literal("{\"sub\":\"\(user)\"}")), true);\n"
            for (id, node) in nodes.enumerated() {
                let want = node.table.serviceRoleCanInsert ? "service_role" : "none"
                if want != role {
                    sql += "select set_config('role', \(HarnessActor.roleValue(want)), true);\n"
                    role = want
                }
                sql += insert(node, id: id, owner: owner, user: user, n: 100 + round * 5000 + id * 10 + i) + ";\n"
            }
        }
        if role != "none" { sql += "select set_config('role', null, true);\n" }
        return sql + "select set_config('request.jwt.claims', '', true);\n"
    }

    private func insert(_ node: Node, id: Int, owner: String, user: String, n: Int) -> String {
        let t = node.table
        func keep(_ k: String, _ v: String) -> String {
            "set_config(\(SQL.literal(setting(id, k, owner: owner))), \(v), true)"
        }
        let match = node.reuseKey.map { key in
            key.map { "\(SQL.ident($0)) = " + value(node.sources[$0]!, t.column($0)!, owner: owner, n: n, user: user) }
                .joined(separator: " and ")
        }
        func existing(_ k: String) -> String {
            "(select \(SQL.ident(k))::text from \(t.sqlName) where \(match!) limit 1)"
        }
        if match != nil, let col = node.lookup {
            let missing = SQL.literal(
                "rlskit: the user has no row in \(t.qualifiedName), and its column \(col) cannot be filled")
            return "select "
                + node.keys.map { keep($0, "coalesce(\(existing($0)), \(missing))") }.joined(separator: ", ")
        }
        var cols: [String] = []
        var vals: [String] = []
        let object = t.schema == "storage" && t.name == "objects"
        for c in t.columns where c.writable {
            if let s = node.sources[c.name] {
                vals.append(value(s, c, owner: owner, n: n, user: user))
            } else if object, let v = Self.objectValue(c.name, owner: user, n: n) {
                vals.append(v)
            } else if Self.needsValue(c), let v = Seeder.derived(c, checks: t.checks[c.name] ?? [], n: n) {
                vals.append(v)
            } else {
                continue
            }
            cols.append(SQL.ident(c.name))
        }
        var body: String
        if let match {
            body =
                "insert into \(t.sqlName)" + InsertSQL.select(cols, vals)
                + " where not exists (select 1 from \(t.sqlName) where \(match))"
        } else {
            body = "insert into \(t.sqlName)" + InsertSQL.values(cols, vals)
        }
        body += " returning " + node.keys.map { SQL.ident($0) }.joined(separator: ", ")
        // Rows the insert made are in r only; a row that was there already, in the table.
        let sets = node.keys.map { k in
            let fresh = "(select \(SQL.ident(k))::text from r)"
            return keep(k, match == nil ? fresh : "coalesce(\(fresh), \(existing(k)))")
        }
        let upload =
            object
            ? "select true" + HarnessActor.storageRequest("storage.object.upload", caller: uploader(user)) + ";\n" : ""
        return upload + "with r as (\(body)) select " + sets.joined(separator: ", ")
    }

    /// A storage object made as a parent is an upload of its owner's, as the Storage API writes
    /// one: in the owner's folder, owned by them (a trigger reading `path_tokens[2]` or `owner` finds them).
    /// Anon's uploads are owned by no one (the Storage API's `sub` is empty).
    static func objectValue(_ column: String, owner: String, n: Int) -> String? {
        let user = owner != HarnessActor.anon.uid
        switch column {
        case "name": return SQL.literal("\(user ? owner : "public")/rlskit-\(n).txt")
        case "owner": return user ? SQL.literal(owner) + "::uuid" : "null"
        case "owner_id": return user ? SQL.literal(owner) : "null"
        default: return nil
        }
    }

    private func uploader(_ owner: String) -> HarnessActor {
        owner == HarnessActor.anon.uid
            ? .anon : HarnessActor(kind: .user, name: "owner", id: UUID(uuidString: owner) ?? UUID())
    }
}
