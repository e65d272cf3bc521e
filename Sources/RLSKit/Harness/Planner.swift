import Foundation
import Postgres

/// Everything decided before the first check runs.
struct HarnessPlan {
    var units: [HarnessUnit] = []
    /// Outcomes that need no database work (strict-mode coverage failures).
    var extra: [TestOutcome] = []
    var uncovered: [String] = []
    var accessFiles: [String] = []
}

enum Planner {
    static func plan(_ input: HarnessInput, conn: PostgresConnection, options: HarnessOptions) throws -> HarnessPlan {
        var plan = HarnessPlan()
        let network = try Catalog.networkFunctions(conn)
        if !network.isEmpty && !options.allowSideEffects {
            throw ConfigurationError(
                "refusing to run: \(network.joined(separator: ", ")) can make real network calls from triggers "
                    + "(e.g. storage deletions); run against a database without them, or pass --allow-side-effects")
        }
        let hasServiceRole = try Catalog.roleExists(conn, "service_role")
        let authColumns = try Catalog.authUserColumns(conn)
        let authAdmin = try Catalog.roleExists(conn, "supabase_auth_admin")
        let needsAuth =
            !input.access.flatMap(\.tables).isEmpty || !input.access.flatMap(\.buckets).isEmpty
            || input.scenarios.contains { $0.scenarios.contains { !$0.users.isEmpty } }
        if needsAuth && authColumns.isEmpty {
            throw ConfigurationError(
                "auth.users does not exist: install the Supabase stand-in (rlskit apply) or point at a Supabase database"
            )
        }

        for file in input.access {
            plan.accessFiles.append(file.path)
            let present = try Catalog.existingSchemas(conn, file.exposedSchemas)
            for (schema, at) in zip(file.exposedSchemas, file.exposedLocations) where !present.contains(schema) {
                throw InputError(
                    at,
                    "schema \(SQL.ident(schema)) does not exist in the database: fix the name in 'expose' or apply the migrations first"
                )
            }
            let infos = try Catalog.tables(conn, file.tables.map { ($0.schema, $0.name) })
            for (intent, info) in zip(file.tables, infos) {
                guard info.exists else {
                    throw InputError(
                        intent.location,
                        "table \(intent.qualifiedName) does not exist in the database: fix the name or apply the migrations first"
                    )
                }
                guard let owner = info.column(intent.owner) else {
                    throw InputError(
                        intent.location,
                        "table \(intent.qualifiedName) has no column '\(intent.owner)': name the column holding the owner's user id"
                    )
                }
                guard owner.baseTypeName == "uuid" else {
                    throw InputError(
                        intent.settings["owner"] ?? intent.location,
                        "owner column \(SQL.ident(owner.name)) of \(intent.qualifiedName) is \(owner.type), not uuid: "
                            + "name the column holding the owner's user id (auth.users.id)")
                }
                try checkSeeds(intent, info, conn: conn)
                var matrix = TableMatrix(info: info, intent: intent, serviceRoleCanInsert: info.serviceRoleCanInsert)
                matrix.request.headers = file.headers
                plan.units.append(matrix.unit())
            }
            if !file.buckets.isEmpty {
                let storage = try Catalog.table(conn, schema: "storage", name: "objects")
                for b in file.buckets {
                    guard storage.exists else {
                        throw InputError(
                            b.location, "bucket \(b.id): storage.objects does not exist (no Supabase storage schema)")
                    }
                    let found: Bool = try conn.query(
                        "select exists (select 1 from storage.buckets where id = $1) as e", [b.id]
                    ).rows[0].decode("e")
                    guard found else {
                        throw InputError(
                            b.location,
                            "bucket \(b.id) does not exist in storage.buckets: fix the name or apply the migrations first"
                        )
                    }
                    plan.units.append(
                        BucketMatrix(intent: b, storagePolicyTexts: storage.policyTexts, serviceRole: hasServiceRole)
                            .unit())
                }
            }
        }
        for (file, scenarios) in input.scenarios {
            for s in scenarios {
                plan.units.append(s.unit(suite: "\((file as NSString).lastPathComponent): \(s.title)"))
            }
        }
        for i in plan.units.indices where !plan.units[i].users.isEmpty {
            plan.units[i].signUp = SignUp.script(plan.units[i].users, columns: authColumns, authAdminExists: authAdmin)
        }

        let schemas = input.access.flatMap(\.exposedSchemas)
        let declared = Set(input.access.flatMap(\.tables).map(\.qualifiedName))
        plan.uncovered = try Catalog.rlsTables(
            conn, schemas: schemas.isEmpty ? options.exposedSchemas ?? ["public"] : schemas
        ).filter {
            !declared.contains($0)
        }
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
