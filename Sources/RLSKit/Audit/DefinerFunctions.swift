/// A SECURITY DEFINER function in an exposed schema that anon or authenticated may execute, or
/// (`isHelper`) any user function whose body asks who the caller is: callers of such a helper
/// check the caller too.
struct FunctionRow: Sendable {
    var schema: String
    /// `name(argument types)`.
    var name: String
    var owner: String
    var language: String
    var body: String
    /// How each API role may execute it ("granted to PUBLIC", …); absent when it may not.
    var executableBy: [String: String]
    var isHelper: Bool
    /// Parameter names, lower-cased ("" for unnamed ones).
    var argumentNames: [String] = []
    var returnsBoolean = false

    var object: AuditObject { AuditObject(schema: schema, name: name, kind: "function") }
    var baseName: String { String(name.prefix { $0 != "(" }) }
}

extension CatalogDataset {
    static func executeVia(_ role: String) -> String {
        """
        (select case
            when not (has_schema_privilege(ar.oid, n.oid, 'USAGE') and has_function_privilege(ar.oid, p.oid, 'EXECUTE')) then null
            when exists (select 1 from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) x
                         where x.grantee = 0 and x.privilege_type = 'EXECUTE') then 'granted to PUBLIC'
            when exists (select 1 from aclexplode(p.proacl) x
                         where x.grantee = ar.oid and x.privilege_type = 'EXECUTE') then 'granted to \(role)'
            else 'through a role \(role) is a member of' end
         from pg_catalog.pg_roles ar where ar.rolname = '\(role)')
        """
    }

    static let functionsSQL = """
        select n.nspname as schema, p.proname || '(' || pg_catalog.oidvectortypes(p.proargtypes) || ')' as name,
               pg_catalog.pg_get_userbyid(p.proowner) as owner, l.lanname as language, p.prosrc as body,
               coalesce(p.proargnames, '{}')::text[] as argnames, p.prorettype = 'bool'::regtype as returns_bool,
               \(executeVia("anon")) as anon, \(executeVia("authenticated")) as authenticated,
               not (p.prosecdef and n.nspname = any($1::text[])) as helper
        from pg_catalog.pg_proc p
        join pg_catalog.pg_namespace n on n.oid = p.pronamespace
        join pg_catalog.pg_language l on l.oid = p.prolang
        where p.prokind = 'f' and p.prorettype not in ('trigger'::regtype, 'event_trigger'::regtype)
          and \(SQLParts.notExtensionMember("p", catalog: "pg_proc"))
          and ((p.prosecdef and n.nspname = any($1::text[]))
               or (\(SchemaLists.userSchema("n")) and p.prosrc ~ 'auth\\.(uid|jwt|role)\\(|request\\.jwt|current_setting\\(''role'''))
        """
}
