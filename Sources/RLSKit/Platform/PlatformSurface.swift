import Postgres

/// The platform's surface as recorded in `sql/platform/surface.tsv`: one record per object and
/// attribute (owner, columns, grants, security, search_path, role attributes, extension
/// versions), and the known differences of the stand-in, each with its reason. The same
/// records come from a live database through `read(_:)`, so the two compare line by line.
public enum PlatformSurface {
    /// One fact: `table auth.users owner supabase_auth_admin`.
    public struct Record: Hashable, Sendable {
        public var kind: String
        public var object: String
        public var attribute: String
        public var value: String

        public init(kind: String, object: String, attribute: String, value: String) {
            self.kind = kind
            self.object = object
            self.attribute = attribute
            self.value = value
        }
    }

    /// An attribute whose value differs (`-`: absent), or an object one side lacks (attribute
    /// `exists`).
    public struct Difference: Hashable, Sendable, CustomStringConvertible {
        public var kind: String
        public var object: String
        public var attribute: String
        public var platform: String
        public var standIn: String

        public var description: String {
            "\(kind) \(object) \(attribute): platform \(platform) vs stand-in \(standIn)"
        }
    }

    /// A difference the stand-in has on purpose (or a bug, said so), with its reason.
    public struct KnownDifference: Hashable, Sendable {
        public var difference: Difference
        public var reason: String
    }

    public struct Recorded: Sendable {
        /// The header's comment lines (sources, date), without `#`.
        public var header: [String]
        public var records: [Record]
        public var known: [KnownDifference]
    }

    public struct FormatError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Where the data lives, under `sql/`.
    public static let path = "platform/surface.tsv"

    /// The recorded surface compiled into the binary.
    public static func recorded() throws -> Recorded {
        guard let file = BuiltInSQL.all.first(where: { $0.path == path }) else {
            throw FormatError(description: "sql/\(path) is not embedded")
        }
        return try parse(file.contents)
    }

    /// Reads the file's two sections: `[surface]` lines `kind object attribute value` and
    /// `[known]` lines `kind object attribute platform stand-in reason`, tab-separated.
    public static func parse(_ text: String) throws -> Recorded {
        var out = Recorded(header: [], records: [], known: [])
        var section = ""
        var seen = Set<String>()
        for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw)
            if line.hasPrefix("#") {
                if section.isEmpty { out.header.append(String(line.dropFirst()).trimmingPrefixSpace()) }
                continue
            }
            if line.trimmingPrefixSpace().isEmpty { continue }
            if line == "[surface]" || line == "[known]" {
                section = line
                continue
            }
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            func fail(_ what: String) -> FormatError { FormatError(description: "sql/\(path):\(n + 1): \(what)") }
            switch section {
            case "[surface]":
                guard f.count == 4, f.allSatisfy({ !$0.isEmpty }) else { throw fail("want 4 tab-separated fields") }
                guard seen.insert(f[0] + "\t" + f[1] + "\t" + f[2]).inserted else { throw fail("repeated attribute") }
                out.records.append(Record(kind: f[0], object: f[1], attribute: f[2], value: f[3]))
            case "[known]":
                guard f.count == 6, f.allSatisfy({ !$0.isEmpty }) else { throw fail("want 6 tab-separated fields") }
                out.known.append(
                    KnownDifference(
                        difference: Difference(
                            kind: f[0], object: f[1], attribute: f[2], platform: f[3], standIn: f[4]),
                        reason: f[5]))
            default: throw fail("a record before [surface]")
            }
        }
        return out
    }

    /// Every difference between the recorded and a live surface, in the record's order.
    /// Objects are compared whole: one side lacking an object is one difference (`exists`);
    /// a recorded value `?` is not compared; an object recorded as `exists no` must be absent.
    public static func compare(recorded: [Record], live: [Record]) -> [Difference] {
        func key(_ r: Record) -> String { r.kind + "\t" + r.object }
        var order: [String] = []
        var platform: [String: [String: String]] = [:]
        var standIn: [String: [String: String]] = [:]
        for r in recorded {
            if platform[key(r)] == nil { order.append(key(r)) }
            platform[key(r), default: [:]][r.attribute] = r.value
        }
        for r in live {
            if platform[key(r)] == nil, standIn[key(r)] == nil { order.append(key(r)) }
            standIn[key(r), default: [:]][r.attribute] = r.value
        }
        var out: [Difference] = []
        for k in order {
            let parts = k.split(separator: "\t", maxSplits: 1).map(String.init)
            // `exists no`: recorded as absent from the platform.
            let p = platform[k].flatMap { $0 == ["exists": "no"] ? nil : $0 }
            let s = standIn[k]
            if p == nil, platform[k] != nil, s == nil { continue }
            guard let p, let s else {
                out.append(
                    Difference(
                        kind: parts[0], object: parts[1], attribute: "exists", platform: p == nil ? "no" : "yes",
                        standIn: s == nil ? "no" : "yes"))
                continue
            }
            let attributes = p.keys.sorted().filter { s[$0] != nil } + Set(p.keys).symmetricDifference(s.keys).sorted()
            // `?`: a fact the record does not know, never compared.
            for a in attributes where p[a] != s[a] && p[a] != "?" {
                out.append(
                    Difference(
                        kind: parts[0], object: parts[1], attribute: a, platform: p[a] ?? "-", standIn: s[a] ?? "-"))
            }
        }
        return out
    }

    /// `docs/fidelity.md`: per kind and per object, how many recorded facts the stand-in
    /// matches, then every known difference with its reason. Made from the file alone.
    public static func fidelityPage(_ recorded: Recorded) -> String {
        func cell(_ s: String) -> String {
            s.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "`", with: "'")
        }
        func key(_ kind: String, _ object: String) -> String { kind + "\t" + object }
        var facts: [String: Int] = [:]
        var order: [(kind: String, object: String)] = []
        for r in recorded.records where !(r.attribute == "exists" && r.value == "no") {
            if facts[key(r.kind, r.object)] == nil { order.append((r.kind, r.object)) }
            facts[key(r.kind, r.object), default: 0] += 1
        }
        var differing: [String: [KnownDifference]] = [:]
        for k in recorded.known {
            let d = k.difference
            if facts[key(d.kind, d.object)] == nil, differing[key(d.kind, d.object)] == nil {
                order.append((d.kind, d.object))
            }
            differing[key(d.kind, d.object), default: []].append(k)
        }
        var text = "# Fidelity to the platform\n\n"
        text +=
            "How closely rlskit's stand-in (the throwaway server's `auth`, `storage`, `realtime`, `vault`, "
            + "`supabase_functions` and the rest, its roles and extensions) matches the platform's catalog. "
            + "Generated from [`sql/platform/surface.tsv`](../sql/platform/surface.tsv), the platform's surface as "
            + "recorded from its public sources; `PlatformSurfaceTests` installs the stand-in, reads the same facts "
            + "from its catalog and fails on any difference that is not listed below with its reason. "
            + "Regenerate with `RLSKIT_REGENERATE=1 swift test --filter PlatformSurfaceTests`.\n\n"
        text += "Recorded: " + recorded.header.prefix { !$0.isEmpty }.joined(separator: " ") + "\n\n"
        text += "## By kind\n\n| kind | objects | facts | known differences | of them bugs |\n|---|---|---|---|---|\n"
        let kinds = order.reduce(into: [String]()) { if !$0.contains($1.kind) { $0.append($1.kind) } }
        for kind in kinds {
            let objects = order.filter { $0.kind == kind }
            let known = objects.flatMap { differing[key($0.kind, $0.object)] ?? [] }
            let bugs = known.filter { $0.reason.hasPrefix("bug:") }.count
            let n = objects.map { facts[key($0.kind, $0.object)] ?? 0 }.reduce(0, +)
            text += "| \(kind) | \(objects.count) | \(n) | \(known.count) | \(bugs) |\n"
        }
        text += "\n## By object\n\n"
        text += "Facts: what the record says of the object. Same: the stand-in has it as recorded. "
        text += "Only on the platform / only in the stand-in: one side lacks the object.\n\n"
        text += "| kind | object | facts | stand-in |\n|---|---|---|---|\n"
        for o in order {
            let known = differing[key(o.kind, o.object)] ?? []
            let exists = known.first { $0.difference.attribute == "exists" }?.difference
            let status: String
            if let exists {
                status = exists.platform == "yes" ? "only on the platform" : "only in the stand-in"
            } else if known.isEmpty {
                status = "same"
            } else {
                let bugs = known.filter { $0.reason.hasPrefix("bug:") }.count
                status =
                    "\(known.count) known difference\(known.count == 1 ? "" : "s")"
                    + (bugs > 0 ? " (\(bugs) bug\(bugs == 1 ? "" : "s"))" : "")
            }
            text += "| \(o.kind) | `\(cell(o.object))` | \(facts[key(o.kind, o.object)] ?? 0) | \(status) |\n"
        }
        text += "\n## Known differences\n\n"
        text += "A reason that starts with \"bug:\" is a difference to fix in the stand-in.\n\n"
        text += "| object | attribute | platform | stand-in | reason |\n|---|---|---|---|---|\n"
        for k in recorded.known {
            let d = k.difference
            text +=
                "| \(d.kind) `\(cell(d.object))` | \(cell(d.attribute)) | \(cell(d.platform)) | \(cell(d.standIn)) | "
                + "\(cell(k.reason)) |\n"
        }
        return text
    }

    /// The platform's schemas rlskit stands in for, and the roles it records.
    static func scope(_ records: [Record]) -> (schemas: [String], roles: [String], extensions: [String]) {
        func names(_ kind: String) -> [String] {
            var seen = Set<String>()
            return records.filter { $0.kind == kind && seen.insert($0.object).inserted }.map(\.object)
        }
        return (names("schema"), names("role"), names("extension"))
    }

    /// The same records from a live database, for the schemas, roles and extensions `recorded`
    /// names (and every platform-named role). Objects an extension brings count only where the
    /// record names them (vault's secrets do; pgcrypto's functions do not).
    public static func read(_ conn: PostgresConnection, like recorded: [Record]) throws -> [Record] {
        let (schemas, roles, extensions) = scope(recorded)
        let named = Set(recorded.map { $0.kind + "\t" + $0.object })
        let rows = try conn.rolledBack { c in
            try c.query("select pg_catalog.set_config('search_path', '', true)")
            return try c.query(
                catalogQuery,
                [schemas.joined(separator: ","), roles.joined(separator: ","), extensions.joined(separator: ",")]
            ).rows
        }
        var out: [Record] = []
        for row in rows {
            let r = Record(
                kind: try row.decode("kind"), object: try row.decode("object"), attribute: try row.decode("attribute"),
                value: try row.decode("value"))
            if try row.decode("member") as Bool, !named.contains(r.kind + "\t" + r.object) { continue }
            out.append(r)
        }
        return out
    }

    /// One row per record: kind, object, attribute, value, and whether an extension owns it.
    /// Privileges are ACL letters (`arwdDxt`, `X`, `U`, `UC`; `*` after one with grant option),
    /// for anon, authenticated, service_role, postgres and PUBLIC only; PG 17's MAINTAIN is left
    /// out so the record reads the same on every version.
    static let catalogQuery = """
        with schemas as (
          select n.oid, n.nspname from pg_catalog.pg_namespace n
           where n.nspname = any (pg_catalog.string_to_array($1, ','))
        ), grantees(oid, name) as (
          select 0::pg_catalog.oid, 'PUBLIC' union all
          select oid, rolname from pg_catalog.pg_roles
           where rolname in ('anon', 'authenticated', 'service_role', 'postgres')
        ), letters(privilege, letter, ord) as (
          values ('INSERT', 'a', 1), ('SELECT', 'r', 2), ('UPDATE', 'w', 3), ('DELETE', 'd', 4),
                 ('TRUNCATE', 'D', 5), ('REFERENCES', 'x', 6), ('TRIGGER', 't', 7), ('EXECUTE', 'X', 8),
                 ('USAGE', 'U', 9), ('CREATE', 'C', 10)
        ), members as (
          select d.classid, d.objid from pg_catalog.pg_depend d
           where d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass and d.deptype = 'e'
        ), objects(kind, object, owner, acl, member) as (
          select 'schema', n.nspname::text, n.nspowner,
                 coalesce(n.nspacl, pg_catalog.acldefault('n', n.nspowner)),
                 exists (select from members m where m.classid = 'pg_catalog.pg_namespace'::pg_catalog.regclass
                                                 and m.objid = n.oid)
            from pg_catalog.pg_namespace n join schemas s on s.oid = n.oid
          union all
          select case when c.relkind in ('v', 'm') then 'view' else 'table' end, s.nspname || '.' || c.relname,
                 c.relowner, coalesce(c.relacl, pg_catalog.acldefault('r', c.relowner)),
                 exists (select from members m where m.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
                                                 and m.objid = c.oid)
            from pg_catalog.pg_class c join schemas s on s.oid = c.relnamespace
           where c.relkind in ('r', 'p', 'v', 'm', 'f')
          union all
          select 'function', s.nspname || '.' || p.proname || '(' || pg_catalog.oidvectortypes(p.proargtypes) || ')',
                 p.proowner, coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner)),
                 exists (select from members m where m.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass
                                                 and m.objid = p.oid)
            from pg_catalog.pg_proc p join schemas s on s.oid = p.pronamespace
           where p.prokind in ('f', 'p')
          union all
          select 'type', s.nspname || '.' || t.typname, t.typowner,
                 coalesce(t.typacl, pg_catalog.acldefault('T', t.typowner)),
                 exists (select from members m where m.classid = 'pg_catalog.pg_type'::pg_catalog.regclass
                                                 and m.objid = t.oid)
            from pg_catalog.pg_type t join schemas s on s.oid = t.typnamespace
           where t.typtype in ('e', 'd')
        )
        -- owners and grants of schemas, relations, functions and types
        select o.kind, o.object, 'owner' as attribute, pg_catalog.pg_get_userbyid(o.owner)::text as value, o.member
          from objects o
        union all
        select o.kind, o.object, 'grant.' || g.name,
               pg_catalog.string_agg(l.letter || case when a.is_grantable then '*' else '' end, '' order by l.ord),
               o.member
          from objects o cross join lateral pg_catalog.aclexplode(o.acl) a
          join grantees g on g.oid = a.grantee join letters l on l.privilege = a.privilege_type
         group by o.kind, o.object, g.name, o.member
        union all
        -- tables and views: row level security, columns in order, each column's type
        select case when c.relkind in ('v', 'm') then 'view' else 'table' end, s.nspname || '.' || c.relname, a.attribute,
               a.value, exists (select from members m where m.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
                                                         and m.objid = c.oid)
          from pg_catalog.pg_class c join schemas s on s.oid = c.relnamespace
          cross join lateral (
            select 'rls', case when c.relrowsecurity then 'on' else 'off' end where c.relkind in ('r', 'p')
            union all
            select 'security_invoker', 'on' where c.relkind = 'v'
               and 'security_invoker=true' = any (coalesce(c.reloptions, '{}'))
            union all
            select 'columns', pg_catalog.string_agg(t.attname, ',' order by t.attnum)
              from pg_catalog.pg_attribute t where t.attrelid = c.oid and t.attnum > 0 and not t.attisdropped
            union all
            select 'column.' || t.attname,
                   pg_catalog.format_type(t.atttypid, t.atttypmod)
                   || case when t.attnotnull then ' not null' else '' end
                   || case when t.attgenerated = 's' then ' generated' else '' end
              from pg_catalog.pg_attribute t where t.attrelid = c.oid and t.attnum > 0 and not t.attisdropped
          ) as a(attribute, value)
         where c.relkind in ('r', 'p', 'v', 'm', 'f')
        union all
        -- functions: how they run
        select 'function', s.nspname || '.' || p.proname || '(' || pg_catalog.oidvectortypes(p.proargtypes) || ')',
               a.attribute, a.value,
               exists (select from members m where m.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass
                                               and m.objid = p.oid)
          from pg_catalog.pg_proc p join schemas s on s.oid = p.pronamespace
          join pg_catalog.pg_language l on l.oid = p.prolang
          cross join lateral (
            select 'security', case when p.prosecdef then 'definer' else 'invoker' end
            union all
            select 'language', l.lanname::text
            union all
            select 'volatility', case p.provolatile when 'i' then 'immutable' when 's' then 'stable' else 'volatile' end
            union all
            select 'returns', pg_catalog.pg_get_function_result(p.oid)
            union all
            select 'search_path', pg_catalog.substr(cfg, 13)
              from pg_catalog.unnest(p.proconfig) cfg where cfg like 'search_path=%'
          ) as a(attribute, value)
         where p.prokind in ('f', 'p')
        union all
        -- enum types: their labels
        select 'type', s.nspname || '.' || t.typname, 'labels',
               pg_catalog.string_agg(e.enumlabel::text, ',' order by e.enumsortorder),
               exists (select from members m where m.classid = 'pg_catalog.pg_type'::pg_catalog.regclass
                                               and m.objid = t.oid)
          from pg_catalog.pg_type t join schemas s on s.oid = t.typnamespace
          join pg_catalog.pg_enum e on e.enumtypid = t.oid
         group by s.nspname, t.typname, t.oid
        union all
        -- roles: attributes that are on, memberships, settings
        select 'role', r.rolname::text, a.attribute, a.value, false
          from pg_catalog.pg_roles r
          cross join lateral (
            select 'flags', coalesce(nullif(pg_catalog.array_to_string(array_remove(array[
                     case when r.rolsuper then 'superuser' end, case when r.rolcreaterole then 'createrole' end,
                     case when r.rolcreatedb then 'createdb' end, case when r.rolreplication then 'replication' end,
                     case when r.rolcanlogin then 'login' end, case when r.rolinherit then 'inherit' end,
                     case when r.rolbypassrls then 'bypassrls' end], null), ' '), ''), '-')
            union all
            select 'member_of', pg_catalog.string_agg(g.rolname::text, ',' order by g.rolname)
              from pg_catalog.pg_auth_members m join pg_catalog.pg_roles g on g.oid = m.roleid
             where m.member = r.oid
            having count(*) > 0
            union all
            select 'config.' || pg_catalog.split_part(cfg, '=', 1), pg_catalog.substr(cfg, pg_catalog.strpos(cfg, '=') + 1)
              from pg_catalog.unnest(r.rolconfig) cfg
          ) as a(attribute, value)
         where r.rolname = any (pg_catalog.string_to_array($2, ',')) or r.rolname like 'supabase%'
            or r.rolname in ('anon', 'authenticated', 'service_role', 'authenticator', 'dashboard_user', 'pgbouncer')
        union all
        -- extensions: the version shipped (installed, else the default), and where it is installed
        select 'extension', x.name::text, a.attribute, a.value, false
          from pg_catalog.pg_available_extensions x
          left join pg_catalog.pg_extension e on e.extname = x.name
          cross join lateral (
            select 'version', coalesce(e.extversion, x.default_version)::text
            union all
            select 'schema', e.extnamespace::pg_catalog.regnamespace::text where e.oid is not null
          ) as a(attribute, value)
         where x.name = any (pg_catalog.string_to_array($3, ',')) or e.oid is not null
        union all
        select 'publication', p.pubname::text, a.attribute, a.value, false
          from pg_catalog.pg_publication p
          cross join lateral (
            select 'owner', pg_catalog.pg_get_userbyid(p.pubowner)::text
            union all
            select 'all_tables', case when p.puballtables then 'on' else 'off' end
          ) as a(attribute, value)
         where p.pubname like 'supabase%'
        """
}

extension String {
    fileprivate func trimmingPrefixSpace() -> String { String(drop { $0 == " " || $0 == "\t" }) }
}
