import Foundation
import Postgres

/// Views that run with their owner's rights (0002, 0010). 0002: anon, then a stranger, reads
/// the view and gets a row naming another signed-up user (id or email). 0010: a row is seeded
/// as someone else's in each protected table the view reads; the proof is a read of the view
/// that returns more rows than the same caller reads from those tables directly.
extension ProofContext {
    func authUsersView(_ f: Finding) throws -> Proof {
        let victim = HarnessActor.user("victim")
        let stranger = HarnessActor.user("stranger")
        try signUp([victim, stranger])
        let view = SQL.qualified(f.object.schema, f.object.name)
        // A materialized view holds what it read when refreshed: refresh it (rolled back) so it
        // holds the users just signed up, as it would hold the real ones.
        if f.object.kind == "materialized view" {
            do { try conn.query("refresh materialized view \(view)") } catch let e as PostgresError {
                if e.isConnectionFailure { throw e }
                throw Unprovable(reason: "refreshing the materialized view failed: \(e.message)")
            }
        }
        let pattern = FunctionProbe.leakPattern([victim.uid, victim.email])
        let read = "select count(*) filter (where to_jsonb(v)::text ~* \(SQL.literal(pattern))) as n from \(view) v"
        var refused: [String] = []
        for actor in [HarnessActor.anon, stranger] {
            switch try sendRead(actor, f.object.schema, f.object.name, read) {
            case .success(let n) where n > 0:
                return Self.proven(
                    actor, request: "GET \(Self.viewPath(f))?select=*", sql: read,
                    effect: "read another user's auth.users data (id or email)", rows: n, keys: [])
            case .success: refused.append("\(actor.name) read no other user's row")
            case .failure(let e): refused.append("\(actor.name)'s read was \(Self.refusal(e))")
            }
        }
        return .notProven(refused.joined(separator: "; "))
    }

    func definerView(_ f: Finding) throws -> Proof {
        let victim = HarnessActor.user("victim")
        let stranger = HarnessActor.user("stranger")
        try signUp([victim, stranger])
        let bases = try conn.query(Self.viewBasesSQL, [SQL.qualified(f.object.schema, f.object.name)]).rows.map {
            (schema: try $0.decode("schema") as String, name: try $0.decode("name") as String)
        }
        var seeded: [String] = []
        for b in bases {
            let t = try table(b.schema, b.name)
            if (try? seed(t, owner: victim.uid, ownerColumn: Self.ownerColumn(t), n: 1)) != nil {
                seeded.append(t.qualifiedName)
            }
        }
        let view = SQL.qualified(f.object.schema, f.object.name)
        let viewRead = "select count(*) as n from \(view)"
        var refused: [String] = []
        for actor in [HarnessActor.anon, stranger] {
            guard case .success(let through) = try sendRead(actor, f.object.schema, f.object.name, viewRead) else {
                refused.append("\(actor.name) cannot read the view")
                continue
            }
            var direct = 0
            var directs: [String] = []
            for b in bases {
                let sql = "select count(*) as n from \(SQL.qualified(b.schema, b.name))"
                switch try sendRead(actor, b.schema, b.name, sql) {
                case .success(let n):
                    direct = max(direct, n)
                    directs.append("\(AuditNames.qualified(b.schema, b.name)): \(n)")
                case .failure(let e): directs.append("\(AuditNames.qualified(b.schema, b.name)): \(Self.refusal(e))")
                }
            }
            if through > direct {
                return Self.proven(
                    actor, request: "GET \(Self.viewPath(f))?select=*", sql: viewRead,
                    effect:
                        "read rows the tables' own policies hide from it (directly: \(directs.joined(separator: "; ")))",
                    rows: through, keys: [])
            }
            refused.append(
                "\(actor.name) read \(through) row\(through == 1 ? "" : "s") through the view, no more than directly")
        }
        let note =
            seeded.isEmpty
            ? "; no row could be seeded in \(bases.map { "\($0.schema).\($0.name)" }.joined(separator: ", "))" : ""
        return .notProven(refused.joined(separator: "; ") + note)
    }

    /// A read as `actor` with PostgREST's settings for a GET of `schema.name`, returning `n`.
    func sendRead(_ actor: HarnessActor, _ schema: String, _ name: String, _ sql: String) throws -> Result<
        Int, PostgresError
    > {
        try undone(actor.impersonation() + APIRequest(schema: schema, table: name).settings("select", as: actor)) {
            Int(try conn.query(sql).rows.first?.decode("n") as Int64? ?? 0)
        }
    }

    static func viewPath(_ f: Finding) -> String {
        "/rest/v1/\(f.object.name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? f.object.name)"
            + (f.object.schema == "public" ? "" : " (Accept-Profile: \(f.object.schema))")
    }

    /// The tables a view reads that have row level security on or that the API roles cannot read.
    static let viewBasesSQL = """
        select distinct tn.nspname::text as schema, t.relname::text as name
          from pg_catalog.pg_rewrite rw
          join pg_catalog.pg_depend d on d.classid = 'pg_rewrite'::regclass and d.objid = rw.oid
                                     and d.refclassid = 'pg_class'::regclass
          join pg_catalog.pg_class t on t.oid = d.refobjid
          join pg_catalog.pg_namespace tn on tn.oid = t.relnamespace
         where rw.ev_class = to_regclass($1) and t.oid <> rw.ev_class and t.relkind in ('r', 'p')
           and (t.relrowsecurity or not (has_table_privilege('anon', t.oid, 'SELECT')
                                         or has_table_privilege('authenticated', t.oid, 'SELECT')))
         order by 1, 2
        """
}
