import Foundation
import Postgres

/// Everything decided before the first check runs.
struct HarnessPlan {
    var units: [HarnessUnit] = []
    /// Outcomes that need no database work (strict-mode coverage failures).
    var extra: [TestOutcome] = []
    var uncovered: [String] = []
    var accessFiles: [String] = []
    /// Lines for the report about how the run was made (sign-ups not as GoTrue's role).
    var notes: [String] = []
}

enum Planner {
    static func plan(_ input: HarnessInput, conn: PostgresConnection, options: HarnessOptions) throws -> HarnessPlan {
        var plan = HarnessPlan()
        let hooked = options.accessTokenHook != nil
        let network = try Catalog.networkFunctions(conn)
        if !network.isEmpty && !options.allowSideEffects {
            throw ConfigurationError(
                "refusing to run: \(network.joined(separator: ", ")) can make real network calls from triggers "
                    + "(e.g. storage deletions); run against a database without them, or pass --allow-side-effects")
        }
        let hasServiceRole = try Catalog.roleExists(conn, "service_role")
        let authColumns = try Catalog.authUserColumns(conn)
        let signUpMetadata = authColumns.isEmpty ? SignUpMetadata() : try SignUpMetadata.read(conn)
        let gotrue = try Catalog.authAdmin(conn)
        // The units run on the API login where there is one (the throwaway server), which may switch.
        let authAdmin = gotrue.exists && (options.apiConnection != nil || gotrue.usable)
        let needsAuth =
            !input.access.flatMap(\.tables).isEmpty || !input.access.flatMap(\.buckets).isEmpty
            || input.scenarios.contains { $0.scenarios.contains { !$0.users.isEmpty } }
        if needsAuth && authColumns.isEmpty {
            throw ConfigurationError(
                "auth.users does not exist: install the Supabase stand-in (rlskit apply) or point at a Supabase database"
            )
        }

        // PostgREST calls the project's db-pre-request function before every request.
        let preRequest = input.access.isEmpty ? nil : try PreRequest.function(conn)
        for file in input.access {
            plan.accessFiles.append(file.path)
            let present = try Catalog.existingSchemas(conn, file.exposedSchemas)
            for (schema, at) in zip(file.exposedSchemas, file.exposedLocations) where !present.contains(schema) {
                throw InputError(
                    at,
                    "schema \(SQL.ident(schema)) does not exist in the database: fix the name in 'expose' or apply the migrations first"
                )
            }
            var infos = try Catalog.tables(conn, file.tables.map { ($0.schema, $0.name) })
            // Where each declared table is, for `through` chains (a scan per table would be quadratic).
            let position = Dictionary(file.tables.enumerated().map { ($0.element.qualifiedName, $0.offset) }) { a, _ in
                a
            }
            let declared = Dictionary(
                file.tables.map { ($0.qualifiedName, (owner: $0.owner, through: $0.ownerThrough, seeds: $0.seeds)) }
            ) {
                a, _ in a
            }
            for i in infos.indices { infos[i].declared = declared }
            try checkRoleRows(file, conn: conn)
            let worlds = try groupWorlds(file, conn: conn)
            let signUpTexts = worlds.isEmpty ? [] : try Catalog.signUpTriggerBodies(conn)
            let functions = try checkFunctions(file, conn: conn)
            var probes: [ProbeSite] = []
            let exposed = options.exposedSchemas ?? (file.exposedSchemas.isEmpty ? ["public"] : file.exposedSchemas)
            let roles = MatrixActor.roleActors(file.roles)
            for (intent, info) in zip(file.tables, infos) {
                guard info.exists else {
                    throw InputError(
                        intent.location,
                        "table \(intent.qualifiedName) does not exist in the database: fix the name or apply the migrations first"
                    )
                }
                if !intent.owner.isEmpty { try checkOwner(intent, info) }
                if !intent.group.isEmpty, info.column(intent.group) == nil {
                    throw InputError(
                        intent.settings["group"] ?? intent.location,
                        "table \(intent.qualifiedName) has no column '\(intent.group)': name the column holding the row's group"
                    )
                }
                try checkSeeds(intent, info, conn: conn)
                try checkProtected(intent, info)
                if !intent.group.isEmpty {
                    let (top, levels) = try throughChain(intent, info, file: file, infos: infos, at: position)
                    let world = try worldFor(top.0, top.1, worlds)
                    var matrix = GroupMatrix(
                        info: info, intent: intent, world: world.world, roleActors: roles,
                        serviceRole: info.serviceRoleCanInsert && world.serviceRole)
                    matrix.through = levels
                    matrix.headers = file.headers
                    matrix.preRequest = preRequest
                    matrix.attacker = ClaimAttack.groupAttacker(
                        info.policyTexts + levels.flatMap(\.info.policyTexts), signUp: signUpTexts,
                        groupKey: world.world.g1Key, hook: hooked)
                    plan.units.append(matrix.unit())
                    if plan.units[plan.units.count - 1].notCovered == nil {
                        probes.append(
                            ProbeSite(
                                unit: plan.units.count - 1, rank: 1,
                                tables: [info, world.world.membersInfo] + levels.map(\.info)
                                    + (world.world.groupTable.map { [$0] } ?? []),
                                groupNames: matrix.groupArgumentNames,
                                request: matrix.probe(
                                    exposedSchemas: exposed, intents: functions)))
                    }
                } else if !intent.owner.isEmpty {
                    var matrix = TableMatrix(
                        info: info, intent: intent, serviceRoleCanInsert: info.serviceRoleCanInsert,
                        roles: file.roles, hook: hooked)
                    matrix.request.headers = file.headers
                    matrix.request.preRequest = preRequest
                    plan.units.append(matrix.unit())
                    if plan.units[plan.units.count - 1].notCovered == nil {
                        probes.append(
                            ProbeSite(
                                unit: plan.units.count - 1, rank: 0, tables: [info], groupNames: [],
                                request: .ownRows(
                                    exposedSchemas: exposed, a: matrix.a, b: matrix.b, roleActors: matrix.roleActors,
                                    intents: functions)))
                    }
                    if let note = ClaimAttack.unforgeable(
                        suite: info.qualifiedName, info.policyTexts, hook: hooked, at: intent.location)
                    {
                        plan.extra.append(note)
                    }
                } else {
                    var matrix = CatalogMatrix(
                        info: info, intent: intent, roleActors: roles, serviceRole: info.serviceRoleCanInsert)
                    matrix.headers = file.headers
                    matrix.preRequest = preRequest
                    plan.units.append(matrix.unit())
                    if plan.units[plan.units.count - 1].notCovered == nil {
                        probes.append(
                            ProbeSite(
                                unit: plan.units.count - 1, rank: 2, tables: [info], groupNames: [],
                                request: .catalogRow(
                                    exposedSchemas: exposed, table: info.qualifiedName, user: matrix.user.actor,
                                    roleActors: roles, intents: functions)))
                    }
                }
            }
            try assignFunctions(probes, exposedSchemas: exposed, to: &plan, conn: conn)
            plan.extra += try uncalled(
                functions, exposedSchemas: exposed, skip: options.allowUntested && !options.strict, conn: conn)
            for w in worlds where !w.world.members.byClaim {
                var matrix = MembersMatrix(world: w.world, roleActors: roles, serviceRole: w.serviceRole)
                matrix.headers = file.headers
                matrix.preRequest = preRequest
                plan.units.append(matrix.unit())
            }
            if !file.buckets.isEmpty {
                let storage = try Catalog.table(conn, schema: "storage", name: "objects")
                for b in file.buckets {
                    guard storage.exists else {
                        throw InputError(
                            b.location, "bucket \(b.id): storage.objects does not exist (no Supabase storage schema)")
                    }
                    guard let facts = try BucketFacts.load(conn, b.id) else {
                        throw InputError(
                            b.location,
                            "bucket \(b.id) does not exist in storage.buckets: fix the name or apply the migrations first"
                        )
                    }
                    // The parser made sure a group bucket names a members block, or that there is one.
                    let w =
                        b.model == .group
                        ? worlds.first { b.groupMembers == nil || $0.world.members.qualifiedName == b.groupMembers }
                        : nil
                    plan.units.append(
                        BucketMatrix(
                            intent: b, storagePolicyTexts: storage.policyTexts,
                            serviceRole: hasServiceRole && (w?.serviceRole ?? true), facts: facts, hook: hooked,
                            roleActors: roles, world: w?.world
                        )
                        .unit())
                    if let note = ClaimAttack.unforgeable(
                        suite: "bucket \(b.id)", storage.policyTexts, hook: hooked, at: b.location)
                    {
                        plan.extra.append(note)
                    }
                }
            }
        }
        for (file, scenarios) in input.scenarios {
            for s in scenarios {
                plan.units.append(s.unit(suite: "\((file as NSString).lastPathComponent): \(s.title)"))
            }
        }
        if plan.units.contains(where: { !$0.users.isEmpty }) { try options.accessTokenHook?.checkExists(conn) }
        let roleRows = input.access.flatMap(\.roles).filter(\.byRow)
        if gotrue.exists && !authAdmin && plan.units.contains(where: { !$0.users.isEmpty }) {
            plan.notes.append(SignUp.notAsAuthAdmin(gotrue.login))
        }
        for i in plan.units.indices where !plan.units[i].users.isEmpty {
            let users = plan.units[i].users
            let late = plan.units[i].lateUsers
            plan.units[i].signUp = SignUp.script(
                users.filter { !late.contains($0.id) }, columns: authColumns, authAdminExists: authAdmin,
                metadata: signUpMetadata)
            if !late.isEmpty {
                plan.units[i].lateSignUp = SignUp.script(
                    users.filter { late.contains($0.id) }, columns: authColumns, authAdminExists: authAdmin,
                    metadata: signUpMetadata)
            }
            // Holders of roles given by a table row get that row, in matrix units (not scenarios).
            if plan.units[i].isolation == .rollbackEach {
                for u in plan.units[i].users where !u.forged {
                    for r in roleRows where r.name == u.name { plan.units[i].signUp += r.rowInsert(for: u) ?? "" }
                }
            }
            if let hook = options.accessTokenHook {
                plan.units[i].hook = hook
                plan.units[i].hookAsAuthAdmin = authAdmin
                HookClaims.reroute(&plan.units[i])
            }
        }

        let files = input.access.flatMap(\.exposedSchemas)
        let schemas = options.exposedSchemas ?? (files.isEmpty ? ["public"] : files)
        // PostgREST's default profile is the first exposed schema.
        let path = options.requestSearchPath(schema: schemas.first ?? "public")
        // Set at the end of the seeding script (seeds still resolve names as the connecting role):
        // no round trip of its own.
        for i in plan.units.indices where plan.units[i].notCovered == nil {
            plan.units[i].setup += "select set_config('search_path', \(SQL.literal(path)), true);\n"
        }
        let declared = Set(
            input.access.flatMap(\.tables).map(\.qualifiedName)
                + input.access.flatMap(\.memberships).map(\.qualifiedName))
        plan.uncovered = try Catalog.rlsTables(conn, schemas: schemas).filter { !declared.contains($0) }
        if options.strict && !input.access.isEmpty {
            for t in plan.uncovered {
                plan.extra.append(
                    TestOutcome(
                        suite: "coverage", name: "\(t) has declared intent", status: .failed,
                        message:
                            "\(t) has row level security but no block in the access file: add 'table \(t)' with owner, read and write (--strict)"
                    ))
            }
        }
        return plan
    }

    /// A role given by a table row names a table and columns that exist.
    static func checkRoleRows(_ file: AccessFile, conn: PostgresConnection) throws {
        for r in file.roles where r.byRow {
            let at = r.settings["row"] ?? r.location
            let t = try Catalog.table(conn, schema: r.rowSchema, name: r.rowName)
            guard t.exists else {
                throw InputError(
                    at, "role \(r.name): table \(r.rowTable) does not exist: fix the name or apply the migrations first"
                )
            }
            for c in [r.rowUserColumn] + r.rowValues.map(\.column) where t.column(c) == nil {
                throw InputError(
                    at,
                    "role \(r.name): table \(r.rowTable) has no column '\(c)' (columns: "
                        + t.columns.map { SQL.ident($0.name) }.joined(separator: ", ") + ")")
            }
        }
    }

    static func checkProtected(_ intent: TableIntent, _ info: TableInfo) throws {
        let at = intent.settings["protect"] ?? intent.location
        if !intent.protected.isEmpty && intent.owner.isEmpty && intent.group.isEmpty {
            throw InputError(
                at, "table \(intent.qualifiedName): 'protect' needs an owner or a group: whose own row would it be?")
        }
        for name in intent.protected {
            guard let c = info.column(name) else {
                throw InputError(
                    at,
                    "table \(intent.qualifiedName) has no column '\(name)' to protect: fix the name (columns: "
                        + info.columns.map { SQL.ident($0.name) }.joined(separator: ", ") + ")")
            }
            if [intent.owner, intent.group].contains(name) {
                throw InputError(
                    at,
                    "column \(SQL.ident(name)) is the table's owner or group: the matrix already checks it is not handed over"
                )
            }
            guard c.writable, ProtectedColumns.supported(c) else {
                throw InputError(
                    at,
                    "column \(SQL.ident(name)) of \(intent.qualifiedName) (\(c.type)) is "
                        + (c.writable
                            ? "of a type rlskit cannot pick another value for" : "generated or an identity column")
                        + ": remove it from 'protect' and cover it with a scenario")
            }
        }
    }

    static func checkOwner(_ intent: TableIntent, _ info: TableInfo) throws {
        guard let owner = info.column(intent.owner) else {
            throw InputError(
                intent.settings["owner"] ?? intent.location,
                "table \(intent.qualifiedName) has no column '\(intent.owner)': name the column holding the owner's user id"
            )
        }
        let at = intent.settings["owner"] ?? intent.location
        if !intent.ownerThrough.isEmpty {
            guard ParentPlan.ownerKey(info, owner: owner.name, through: intent.ownerThrough) != nil else {
                throw InputError(
                    at,
                    "table \(intent.qualifiedName): column '\(owner.name)' has no foreign key to \(intent.ownerThrough): 'owner … through' follows one"
                )
            }
            return
        }
        guard owner.baseTypeName == "uuid" else {
            throw InputError(
                at,
                "owner column \(SQL.ident(owner.name)) of \(intent.qualifiedName) is \(owner.type), not uuid: "
                    + "name the column holding the owner's user id (auth.users.id)")
        }
        // A key to another table's row (shops.id) is not a user's id, unless that column is one (profiles.id).
        let keys = info.foreignKeys.filter { $0.columns.contains(owner.name) }
        guard !keys.isEmpty,
            !keys.contains(where: { holdsUser(info, [owner.name], info.parents, depth: 0) || $0.toAuthUsers })
        else { return }
        let fk = keys[0]
        let ref = "\(fk.refName)(\(fk.refColumns.map { SQL.ident($0) }.joined(separator: ", ")))"
        if let parent = info.parents[fk.refName], reachesUser(parent, info.parents, info.declared, depth: 0) {
            throw InputError(
                at,
                "table \(intent.qualifiedName): owner \(SQL.ident(owner.name)) references \(ref), which is not a user's id: write 'owner \(SQL.ident(owner.name)) through \(fk.refName)' (with a 'table \(fk.refName)' block whose 'owner' line names its owner's column)"
            )
        }
        // A key without a default may be a user's id set by a sign-up trigger (profiles.id without a
        // foreign key); one the table makes itself (gen_random_uuid()) is a row's, not a user's.
        let made = fk.refColumns.contains { info.parents[fk.refName]?.column($0)?.hasDefault ?? false }
        guard made else { return }
        throw InputError(
            at,
            "table \(intent.qualifiedName): owner \(SQL.ident(owner.name)) references \(ref), which reaches no user (no foreign key from \(fk.refName) leads to auth.users): name the column holding the owner's user id"
        )
    }

    /// Whether `columns` of `t` hold a user's id: a foreign key to auth.users, or to a column that does.
    static func holdsUser(_ t: TableInfo, _ columns: [String], _ catalog: [String: TableInfo], depth: Int) -> Bool {
        guard depth < 5 else { return false }
        for fk in t.foreignKeys where columns.allSatisfy(fk.columns.contains) {
            if fk.toAuthUsers { return true }
            let mapped = columns.compactMap { c in fk.columns.firstIndex(of: c).map { fk.refColumns[$0] } }
            if let p = catalog[fk.refName], holdsUser(p, mapped, catalog, depth: depth + 1) {
                return true
            }
        }
        return false
    }

    /// Whether a row of `t` has an owner: a declared owner line, a column referencing auth.users,
    /// or a foreign key to a table that has one.
    static func reachesUser(
        _ t: TableInfo, _ catalog: [String: TableInfo], _ declared: [String: TableInfo.Declared], depth: Int
    ) -> Bool {
        guard depth < 5 else { return false }
        if let d = declared[t.qualifiedName], !d.owner.isEmpty { return true }
        for fk in t.foreignKeys {
            if fk.toAuthUsers { return true }
            if let p = catalog[fk.refName], p.qualifiedName != t.qualifiedName,
                reachesUser(p, catalog, declared, depth: depth + 1)
            {
                return true
            }
        }
        return false
    }

    /// Every seed names a column of the table and is an expression the server accepts for
    /// that column's type: checked with EXPLAIN (planned, not run), reported at the seed's line.
    static func checkSeeds(_ intent: TableIntent, _ info: TableInfo, conn: PostgresConnection) throws {
        for seed in intent.seeds {
            let at = intent.settings["seed \(seed.column)"] ?? intent.location
            guard let column = info.column(seed.column) else {
                throw InputError(
                    at,
                    "table \(intent.qualifiedName) has no column '\(seed.column)' to seed: fix the name (columns: "
                        + info.columns.map { SQL.ident($0.name) }.joined(separator: ", ") + ")")
            }
            guard column.writable else {
                throw InputError(
                    at,
                    "column \(SQL.ident(column.name)) of \(intent.qualifiedName) is generated or an identity column: remove the seed line"
                )
            }
            let sample = seed.expression.replacingOccurrences(
                of: "{owner}", with: "00000000-0000-0000-0000-000000000000"
            )
            .replacingOccurrences(of: "{n}", with: "1")
            do {
                _ = try conn.query("explain select (\n\(sample)\n)::\(column.type)")
            } catch let e as PostgresError where !e.isConnectionFailure {
                throw InputError(
                    at,
                    "seed \(column.name): \(e.message): fix the SQL expression (it fills a column of type \(column.type))"
                )
            }
        }
    }
}

extension Planner {
    struct PlannedWorld {
        var world: GroupWorld
        var serviceRole: Bool
        /// The table the membership's group column points at, as `schema.name`.
        var groupTable: String?
    }

    /// One group world per members block: its table, the group table it points at, the groups.
    static func groupWorlds(_ file: AccessFile, conn: PostgresConnection) throws -> [PlannedWorld] {
        guard !file.memberships.isEmpty else { return [] }
        let tables = file.memberships.filter { !$0.byClaim }
        let infos = try Catalog.tables(conn, tables.map { ($0.schema, $0.name) })
        var out: [PlannedWorld] = []
        for m in file.memberships where m.byClaim { out.append(try claimWorld(m, file, conn: conn)) }
        for (m, info) in zip(tables, infos) {
            guard info.exists else {
                throw InputError(
                    m.location,
                    "table \(m.qualifiedName) does not exist in the database: fix the name or apply the migrations first"
                )
            }
            for (key, c) in [("group", m.groupColumn), ("user", m.userColumn), ("role", m.roleColumn)]
            where !c.isEmpty && info.column(c) == nil {
                throw InputError(
                    m.settings[key] ?? m.location,
                    "table \(m.qualifiedName) has no column '\(c)': fix the '\(key)' line (columns: "
                        + info.columns.map { SQL.ident($0.name) }.joined(separator: ", ") + ")")
            }
            if let user = info.column(m.userColumn), user.baseTypeName != "uuid" {
                throw InputError(
                    m.settings["user"] ?? m.location,
                    "user column \(SQL.ident(user.name)) of \(m.qualifiedName) is \(user.type), not uuid: name the column holding the member's user id"
                )
            }
            try MembersRoleValues.check(m, conn)
            var groupTable: TableInfo?
            var key = m.groupColumn
            if let ref = info.column(m.groupColumn)?.references, let (schema, name, column) = splitReference(ref) {
                groupTable = try Catalog.table(conn, schema: schema, name: name)
                key = column
            }
            let world = GroupWorld(members: m, membersInfo: info, groupTable: groupTable, groupKey: key)
            out.append(
                PlannedWorld(
                    world: world, serviceRole: info.serviceRoleCanInsert && (groupTable?.serviceRoleCanInsert ?? true),
                    groupTable: groupTable?.qualifiedName))
        }
        return out
    }

    /// Membership by claim: the key's type and the group table come from the first table
    /// whose group column follows this block (the only block, or one referencing a table).
    static func claimWorld(_ m: MembersIntent, _ file: AccessFile, conn: PostgresConnection) throws -> PlannedWorld {
        var keyColumn: TableInfo.ColumnInfo?
        var groupTable: TableInfo?
        var key = ""
        let grouped = file.tables.filter { !$0.group.isEmpty }
        let infos = try Catalog.tables(conn, grouped.map { ($0.schema, $0.name) })
        // A foreign key names the group table; else a table keyed by its group column is it.
        for (t, info) in zip(grouped, infos) {
            if let ref = info.column(t.group)?.references, let (schema, name, column) = splitReference(ref) {
                keyColumn = info.column(t.group)
                groupTable = try Catalog.table(conn, schema: schema, name: name)
                key = column
                break
            }
        }
        if groupTable == nil, let (t, info) = zip(grouped, infos).first(where: { $1.uniqueKeys.contains([$0.group]) }) {
            keyColumn = info.column(t.group)
            groupTable = info
            key = t.group
        }
        if keyColumn == nil, let t = grouped.first, let info = infos.first { keyColumn = info.column(t.group) }
        let empty = TableInfo(
            schema: "", name: "", exists: false, rlsEnabled: false, serviceRoleCanInsert: false, columns: [],
            uniqueKeys: [], policyTexts: [])
        let world = GroupWorld(
            members: m, membersInfo: empty, groupTable: groupTable, groupKey: key, keyColumn: keyColumn)
        return PlannedWorld(
            world: world, serviceRole: groupTable?.serviceRoleCanInsert ?? true, groupTable: groupTable?.qualifiedName)
    }

    /// For `group c through P`: the table at the top of the chain (whose group column follows a
    /// members block), and the tables between, nearest to the group first.
    static func throughChain(
        _ intent: TableIntent, _ info: TableInfo, file: AccessFile, infos: [TableInfo], at position: [String: Int]
    ) throws -> ((TableIntent, TableInfo), [GroupMatrix.ThroughLevel]) {
        var levels: [GroupMatrix.ThroughLevel] = []
        var child = (intent, info)
        while !child.0.through.isEmpty {
            let at = child.0.settings["group"] ?? child.0.location
            guard let i = position[child.0.through] else { break }
            let parent = (file.tables[i], infos[i])
            guard let ref = child.1.column(child.0.group)?.references, let (schema, name, key) = splitReference(ref),
                SQL.qualified(schema, name) == parent.1.qualifiedName, let keyColumn = parent.1.column(key)
            else {
                throw InputError(
                    at,
                    "table \(child.0.qualifiedName): column '\(child.0.group)' has no foreign key to \(parent.1.qualifiedName): 'through' follows one"
                )
            }
            let n = levels.count * 2 + 10
            levels.insert(
                GroupMatrix.ThroughLevel(
                    info: parent.1, intent: parent.0, key: key, k1: GroupWorld.key(keyColumn, n),
                    k2: GroupWorld.key(keyColumn, n + 1)), at: 0)
            child = parent
        }
        return (child, levels)
    }

    /// "schema.table(column)" as the catalog query prints it.
    static func splitReference(_ ref: String) -> (String, String, String)? {
        guard let dot = ref.firstIndex(of: "."), let open = ref.lastIndex(of: "("), ref.last == ")", dot < open else {
            return nil
        }
        return (
            String(ref[..<dot]), String(ref[ref.index(after: dot)..<open]),
            String(ref[ref.index(after: open)..<ref.index(before: ref.endIndex)])
        )
    }

    /// The members block a table's group column belongs to: the only one, or the one whose
    /// group table this column points at (or is).
    static func worldFor(_ intent: TableIntent, _ info: TableInfo, _ worlds: [PlannedWorld]) throws -> PlannedWorld {
        if worlds.count == 1 { return worlds[0] }
        let target = info.column(intent.group)?.references.flatMap(splitReference).map { SQL.qualified($0.0, $0.1) }
        let matches = worlds.filter { w in
            w.groupTable != nil && (w.groupTable == target || w.groupTable == info.qualifiedName)
        }
        guard matches.count == 1 else {
            throw InputError(
                intent.settings["group"] ?? intent.location,
                "table \(intent.qualifiedName): cannot tell which members block its group column '\(intent.group)' follows "
                    + "(it needs a foreign key to the group table one members block points at)")
        }
        return matches[0]
    }
}
