extension Lint {
    /// Functions' bodies that ask who the caller is, by name: calling one is a caller check too.
    static func callerHelpers(_ catalog: AuditCatalog) -> Set<String> {
        Set(
            catalog.functions.filter { FunctionBody($0.body).callerCheck(helpers: [], anywhere: true) != nil }.map {
                $0.baseName.lowercased()
            })
    }

    /// Parameter names that say the caller must know a secret.
    static let secretWords = ["token", "secret", "code", "key", "hash", "nonce"]

    /// SECURITY DEFINER functions in exposed schemas `role` may execute; graded INFO when every
    /// call goes through a check of the caller in the body.
    static func securityDefinerExecutable(role: String, _ catalog: AuditCatalog) -> [FindingDraft] {
        let helpers = callerHelpers(catalog)
        return catalog.functions.compactMap { f -> FindingDraft? in
            guard !f.isHelper, let via = f.executableBy[role] else { return nil }
            let secrets = Set(f.argumentNames.filter { n in secretWords.contains { n.contains($0) } })
            let check = FunctionBody(f.body).callerCheck(helpers: helpers, secretArguments: secrets)
            var detail =
                "SECURITY DEFINER function \(f.object.base) in exposed schema \(AuditNames.ident(f.schema)) can be called by \(role) through the API (EXECUTE \(via)) and runs with the rights of \(f.owner)"
            if let check { detail += "; its body checks the caller with \(check), so it is listed for review only" }
            return FindingDraft(
                object: f.object, detail: detail,
                metadata: ["execute": via, "owner": f.owner, "caller_check": check ?? ""],
                level: check == nil ? nil : .info)
        }
    }

    static let anonSecurityDefinerFunctionExecutable = Lint(
        id: "0028", name: "anon_security_definer_function_executable",
        title: "SECURITY DEFINER function callable by anon",
        level: .error, categories: [.security],
        description: """
            A SECURITY DEFINER function in an exposed schema can be executed by anon, so anyone with the \
            project's public anon key can call it as RPC and it runs with its owner's rights, past every \
            policy. PostgreSQL grants EXECUTE to PUBLIC by default: revoking from anon alone is not \
            enough while PUBLIC still has it.
            """,
        remediation:
            "Move the function to a schema the API does not expose, or `revoke execute on function <function> from public, anon;` (and grant it only to the roles that need it).",
        logic: .swift(needs: [.functions]) { securityDefinerExecutable(role: "anon", $0) },
        triggering: [
            .init(
                """
                create function public.wipe(target uuid) returns void language sql security definer set search_path = ''
                  as $$ select $$;
                """, reports: "function public.wipe(uuid)"),
            .init(
                """
                -- Revoked from anon, but PUBLIC still has EXECUTE.
                create function public.wipe(target uuid) returns void language sql security definer set search_path = ''
                  as $$ select $$;
                revoke execute on function public.wipe(uuid) from anon;
                """, reports: "function public.wipe(uuid)"),
        ],
        nonTriggering: [
            """
            create function public.wipe(target uuid) returns void language sql security definer set search_path = ''
              as $$ select $$;
            revoke execute on function public.wipe(uuid) from public, anon;
            """,
            """
            create schema private;
            create function private.wipe(target uuid) returns void language sql security definer set search_path = ''
              as $$ select $$;
            """,
            """
            -- Every path checks the caller through a role helper: listed at INFO only.
            create table public.members (account uuid, user_id uuid, role text);
            create function public.caller_role(acct uuid) returns jsonb language sql stable set search_path = ''
              as $$ select jsonb_build_object('account_role', role) from public.members
                    where account = acct and user_id = auth.uid() $$;
            create function public.rename_account(acct uuid, title text) returns void language plpgsql
              security definer set search_path = '' as $$
            begin
              if (select public.caller_role(acct) ->> 'account_role') is distinct from 'owner' then
                raise exception 'only owners';
              end if;
            end $$;
            """,
            """
            -- Returns only the caller's own rows (none for anon): INFO only.
            create table public.notes (id int primary key, user_id uuid, body text);
            create function public.my_notes() returns setof public.notes language sql stable security definer
              set search_path = '' as $$ select * from public.notes where user_id = auth.uid() $$;
            """,
            """
            -- A lookup by a secret token the caller must know: INFO only.
            create table public.invitations (id int primary key, invite_token text, account uuid);
            create function public.lookup_invitation(lookup_invitation_token text) returns uuid language sql stable
              security definer set search_path = ''
              as $$ select account from public.invitations where invite_token = lookup_invitation_token $$;
            """,
            """
            -- Refuses every caller but service_role: INFO only.
            create function public.reindex_all() returns void language plpgsql security definer set search_path = ''
              as $$ begin
                if current_setting('role') != 'service_role' then raise exception 'service only'; end if;
              end $$;
            """,
        ])
}
