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

    /// Helpers that raise unless the caller qualifies: calling one anywhere checks the caller.
    static func raisingHelpers(_ catalog: AuditCatalog, helpers: Set<String>) -> Set<String> {
        Set(
            catalog.functions.filter { FunctionBody($0.body).raisesUnlessCaller(helpers: helpers) }.map {
                $0.baseName.lowercased()
            })
    }

    /// SECURITY DEFINER functions in exposed schemas `role` may execute; graded INFO when every
    /// call goes through a check of the caller in the body, or when it is a read-only yes/no
    /// test that a policy for `role` calls (the policy needs it executable).
    static func securityDefinerExecutable(role: String, _ catalog: AuditCatalog) -> [FindingDraft] {
        let helpers = callerHelpers(catalog)
        let raising = raisingHelpers(catalog, helpers: helpers)
        return catalog.functions.compactMap { f -> FindingDraft? in
            guard !f.isHelper, let via = f.executableBy[role] else { return nil }
            let secrets = Set(f.argumentNames.filter { n in secretWords.contains { n.contains($0) } })
            let body = FunctionBody(f.body)
            var detail =
                "SECURITY DEFINER function \(f.object.base) in exposed schema \(AuditNames.ident(f.schema)) can be called by \(role) through the API (EXECUTE \(via)) and runs with the rights of \(f.owner)"
            if role == "anon", let entry = body.anonStoppedAtEntry {
                detail +=
                    "; its body starts with `\(entry)`, which raises for every anon call whatever the arguments, so anon cannot get past it: listed for review only"
                return FindingDraft(
                    object: f.object, detail: detail,
                    metadata: ["execute": via, "owner": f.owner, "caller_check": entry],
                    fix: reviewFix(f, role: role), level: .info)
            }
            // Signed in or not is no check of a signed-in caller.
            let signIn = role == "anon" ? [] : Set(body.signInGuards(alone: true).flatMap { Array($0.range) })
            var check = body.callerCheck(
                helpers: helpers, raisingHelpers: raising, secretArguments: secrets, ignoring: signIn)
            var fix: String?
            if check == nil, role != "anon" {
                (check, detail, fix) = scopeToCaller(f, body, helpers: helpers, detail: detail)
            }
            // A secret proves nothing about who calls when the caller also names the user to act for.
            if let c = check, c.hasPrefix("a lookup by its secret argument"), !body.isReadOnly,
                let named = f.argumentNames.first(where: { $0.contains("user") })
            {
                check = nil
                detail +=
                    "; its body looks rows up by a secret (\(c.dropFirst(2))) but writes for the user its argument \(named) names, so whoever knows the secret acts for any user"
            }
            if let check {
                detail += "; its body checks the caller with \(check), so it is listed for review only"
            } else if f.returnsBoolean, body.isReadOnly, let policy = policyCalling(f, role: role, catalog) {
                check = "a read-only yes/no test policy \(policy) calls"
                detail +=
                    "; it is a read-only yes/no test that policy \(policy) calls, so \(role) must keep EXECUTE; it answers one yes or no per call past RLS, so it is listed for review only (a schema the API does not expose takes it off the API)"
            }
            if check != nil, role != "anon" { fix = reviewFix(f, role: role) }
            return FindingDraft(
                object: f.object, detail: detail,
                metadata: ["execute": via, "owner": f.owner, "caller_check": check ?? ""], fix: fix,
                level: check == nil ? nil : .info)
        }
    }

    /// The first policy applying to `role` whose expressions call `f`, as `"name" on table`.
    static func policyCalling(_ f: FunctionRow, role: String, _ catalog: AuditCatalog) -> String? {
        let name = f.baseName.lowercased()
        let policy = catalog.policies.first { p in
            (role == "anon" ? p.appliesToAnon : p.roles.contains { $0 == "public" || $0 == role })
                && [p.using, p.withCheck].contains { text in
                    guard let text else { return false }
                    let words = FunctionBody(text)
                    return words.words.indices.contains { words.key($0) == name && words.key($0 + 1) == "(" }
                }
        }
        return policy.map { "\(AuditNames.policy($0.name)) on \(AuditNames.qualified($0.schema, $0.table))" }
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
        logic: .swift(needs: [.functions, .policies]) { securityDefinerExecutable(role: "anon", $0) },
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
            .init(
                """
                -- A read-only yes/no test that no policy needs: nothing keeps it on the API.
                create table public.assistants (id uuid primary key, sharing text);
                create function public.assistant_is_private(target uuid) returns boolean language sql stable
                  security definer set search_path = ''
                  as $$ select sharing = 'private' from public.assistants where id = target $$;
                """, reports: "function public.assistant_is_private(uuid)"),
            .init(
                """
                -- A policy calls it, but it writes.
                create table public.hits (n int);
                create table public.docs (id int primary key);
                alter table public.docs enable row level security;
                create function public.count_visit() returns boolean language sql volatile security definer
                  set search_path = '' as $$ insert into public.hits values (1) returning true $$;
                create policy "counted" on public.docs for select to anon using (public.count_visit());
                """, reports: "function public.count_visit()"),
            .init(
                """
                -- The invite code is a secret, but the caller names the user who joins.
                create table public.memberships (id bigint primary key, user_id uuid, code text);
                create function public.accept_invite(invite_code text, invite_user_id uuid) returns void
                  language plpgsql security definer set search_path = '' as $$
                begin
                  update public.memberships set user_id = invite_user_id, code = null where code = invite_code;
                end $$;
                revoke execute on function public.accept_invite(text, uuid) from public, authenticated;
                grant execute on function public.accept_invite(text, uuid) to anon;
                """, reports: "function public.accept_invite(text, uuid)"),
            .init(
                """
                -- It raises first on its arguments alone: anon with other arguments gets past that.
                create table public.stock (location uuid, qty int);
                create function public.move_stock(src uuid, dst uuid, n int) returns void language plpgsql
                  security definer set search_path = '' as $$
                begin
                  if src = dst then raise exception 'locations must differ'; end if;
                  update public.stock set qty = qty - n where location = src;
                end $$;
                """, reports: "function public.move_stock(uuid, uuid, integer)"),
            .init(
                """
                -- Shape tests of a JSON argument and a count stop only badly formed calls.
                create table public.stock (location uuid, qty int);
                create function public.load_stock(items jsonb, n int) returns void language plpgsql
                  security definer set search_path = '' as $$
                begin
                  if jsonb_typeof(items) <> 'array' then raise exception 'items must be an array'; end if;
                  if n <= 0 then raise exception 'n must be positive'; end if;
                  insert into public.stock select (e ->> 'location')::uuid, n from jsonb_array_elements(items) e;
                end $$;
                """, reports: "function public.load_stock(jsonb, integer)"),
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
            -- Its first statement raises for every anon call (the caller's id, set in DECLARE, is
            -- NULL): INFO only.
            create table public.invitations (id uuid primary key, email text, accepted_by uuid);
            create function public.accept(p_invitation uuid) returns void language plpgsql security definer
              set search_path = '' as $$
            declare
              v_uid uuid := auth.uid();
            begin
              if v_uid is null then
                raise exception 'sign in first';
              end if;
              update public.invitations set accepted_by = v_uid where id = p_invitation;
            end $$;
            """,
            """
            -- Other first statements that refuse anon whatever the arguments: INFO only.
            create table public.boxes (id uuid primary key, owner uuid);
            create function public.claim_a(box uuid) returns void language plpgsql security definer
              set search_path = '' as $$
            declare me uuid;
            begin
              me := auth.uid();
              if me is null then raise exception 'sign in'; end if;
              update public.boxes set owner = me where id = box;
            end $$;
            create function public.claim_b(box uuid) returns void language plpgsql security definer
              set search_path = '' as $$
            begin
              if (select auth.uid()) is null then raise exception 'sign in'; end if;
              update public.boxes set owner = box where id = box;
            end $$;
            create function public.claim_c(box uuid) returns void language plpgsql security definer
              set search_path = '' as $$
            begin
              if auth.role() <> 'authenticated' then raise exception 'sign in'; end if;
              update public.boxes set owner = box where id = box;
            end $$;
            create function public.claim_d(box uuid) returns void language plpgsql security definer
              set search_path = '' as $$
            begin
              if not auth.uid() is not null then raise exception using message = 'sign in'; end if;
              update public.boxes set owner = box where id = box;
            end $$;
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
            """
            -- A lookup by a secret code compared through lower(trim(…)): INFO only.
            create table public.invites (study uuid, code text);
            create function public.study_for_code(invite_code text) returns uuid language sql stable
              security definer set search_path = ''
              as $$ select study from public.invites where lower(trim(code)) = lower(trim(invite_code)) $$;
            """,
            """
            -- The caller check fills a variable that the guard tests: INFO only.
            create table public.members (account uuid, user_id uuid, role text);
            create function public.has_role(acct uuid, wanted text) returns boolean language sql stable
              set search_path = '' as $$ select exists (select 1 from public.members
                where account = acct and user_id = auth.uid() and role = wanted) $$;
            create function public.set_role(acct uuid, member uuid, new_role text) returns void language plpgsql
              security definer set search_path = '' as $$
            declare is_owner boolean;
            begin
              select public.has_role(acct, 'owner') into is_owner;
              if not is_owner then raise exception 'only owners'; end if;
              update public.members set role = new_role where account = acct and user_id = member;
            end $$;
            """,
            """
            -- It calls a helper that raises for callers who are not members: INFO only.
            create table public.members (account uuid, user_id uuid, role text);
            create table public.plans (account uuid primary key, plan text);
            create function public.caller_membership(acct uuid) returns jsonb language plpgsql stable
              set search_path = '' as $$
            declare m jsonb;
            begin
              select jsonb_build_object('role', role) into m from public.members
                where account = acct and user_id = auth.uid();
              if m is null then raise exception 'not a member'; end if;
              return m;
            end $$;
            create function public.plan_of(acct uuid) returns jsonb language plpgsql security definer
              set search_path = '' as $$
            declare r jsonb;
            begin
              select public.caller_membership(acct) into r;
              return r || (select jsonb_build_object('plan', plan) from public.plans where account = acct);
            end $$;
            """,
            """
            -- A read-only yes/no test that a storage policy for everyone calls, so anon must keep
            -- EXECUTE: INFO only.
            create table public.assistants (id uuid primary key, sharing text not null default 'private');
            create function public.shared_assistant_exists(object_name text) returns boolean language sql stable
              security definer set search_path = '' as $$ select exists (select 1 from public.assistants
                where id::text = split_part(object_name, '/', 2) and sharing <> 'private') $$;
            create policy "shared assistant images" on storage.objects for select to public
              using (bucket_id = 'assistant_images' and public.shared_assistant_exists(name));
            """,
        ])
}
