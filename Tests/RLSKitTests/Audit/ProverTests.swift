import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// Each exploit on a fixture where it succeeds (ERROR, proof with rows) and on variants where
/// the static lint fires but the exploit fails (WARN with the reason). Nothing is left behind.
final class ProverTests: XCTestCase {
    /// The lint's findings after the prover, on a fresh database with `sql` applied.
    func prove(_ lint: String, _ sql: String, schemas: [String] = ["public"]) throws -> [Finding] {
        let db = try StandIn.makeDatabase(prefix: "proof")
        defer {
            db.conn.close()
            TestServer.drop(db.name)
        }
        _ = try db.conn.runScript(sql)
        let findings = try Auditor.run(db.conn, exposedSchemas: schemas).findings.filter { $0.lint == lint }
        XCTAssertFalse(findings.isEmpty, "\(lint) does not fire on the fixture")
        let users: Int64 = try db.conn.query("select count(*) from auth.users").rows[0].decode(0)
        let rows = try db.conn.query(Self.rowCounts).rows[0]["n"]
        let result = try Prover.prove(findings, on: db.connectionString, ownsDatabase: true)
        XCTAssertEqual(try db.conn.query("select count(*) from auth.users").rows[0].decode(0), users, "users left")
        XCTAssertEqual(try db.conn.query(Self.rowCounts).rows[0]["n"], rows, "rows left")
        XCTAssertEqual(result.sequences.filter { !$0.reset }, [], "sequences not put back")
        return result.findings
    }

    /// Rows of every user table, as one text.
    static let rowCounts = """
        select coalesce(string_agg(format('%s=%s', relid::regclass, n_live_tup), ',' order by relid), '') as n
          from (select c.oid as relid, (xpath('/row/c/text()', query_to_xml(format('select count(*) as c from %s', c.oid::regclass), false, true, '')))[1]::text as n_live_tup
                  from pg_class c join pg_namespace s on s.oid = c.relnamespace
                 where c.relkind = 'r' and s.nspname in ('public', 'api', 'private')) t
        """

    func assertProven(
        _ f: [Finding], actor: String, effect: String, keys: [String]? = nil, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        guard let p = f.first?.proof else { return XCTFail("no proof", file: file, line: line) }
        XCTAssertEqual(p.outcome, .proven, p.line, file: file, line: line)
        XCTAssertEqual(f.first?.level, .error, file: file, line: line)
        XCTAssertTrue(p.actor.hasPrefix(actor), p.line, file: file, line: line)
        XCTAssertTrue(p.effect.hasPrefix(effect), p.line, file: file, line: line)
        XCTAssertGreaterThan(p.rows, 0, file: file, line: line)
        if let keys { XCTAssertEqual(p.keys, keys, file: file, line: line) }
    }

    func assertDemoted(_ f: [Finding], _ reason: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let p = f.first?.proof else { return XCTFail("no proof", file: file, line: line) }
        XCTAssertEqual(p.outcome, .notProven, p.line, file: file, line: line)
        XCTAssertEqual(f.first?.level, .warn, file: file, line: line)
        XCTAssertEqual(p.demotedFrom, .error, file: file, line: line)
        XCTAssertTrue(p.reason.contains(reason), "\(p.reason) does not say \(reason)", file: file, line: line)
    }

    // MARK: 0013 rls_disabled_in_public

    func testRLSDisabledProvenByAnonRead() throws {
        let f = try prove(
            "rls_disabled_in_public",
            """
            create table public.notes (id int primary key, body text);
            grant select on public.notes to anon;
            """)
        assertProven(f, actor: "anon", effect: "read", keys: ["id=2"])
        XCTAssertEqual(f[0].proof?.request, "GET /rest/v1/notes?select=*")
        XCTAssertEqual(f[0].proof?.role, "anon")
    }

    func testRLSDisabledProvenByInsertWhenNoneMayRead() throws {
        let f = try prove(
            "rls_disabled_in_public",
            """
            create table public.inbox (id int primary key, body text);
            grant insert on public.inbox to anon;
            """)
        assertProven(f, actor: "anon", effect: "inserted")
    }

    func testRLSDisabledWithoutGrantsIsDemoted() throws {
        let f = try prove("rls_disabled_in_public", "create table public.notes (id int primary key, body text);")
        assertDemoted(f, "anon's read was denied (permission denied for table notes)")
    }

    func testRLSDisabledInSchemaAnonCannotUseIsDemoted() throws {
        // The grant is there, but anon has no USAGE on the schema: PostgREST cannot serve it either.
        let f = try prove(
            "rls_disabled_in_public",
            """
            create schema api;
            create table api.notes (id int primary key, body text);
            grant select on api.notes to anon, authenticated;
            """, schemas: ["api"])
        assertDemoted(f, "permission denied for schema api")
    }

    // MARK: 0007 policy_exists_rls_disabled

    func testPolicyExistsRLSDisabledProven() throws {
        let f = try prove(
            "policy_exists_rls_disabled",
            """
            create table public.notes (id int primary key, owner uuid);
            create policy "own notes" on public.notes for select using (owner = (select auth.uid()));
            grant select on public.notes to authenticated;
            """)
        assertProven(f, actor: "a stranger", effect: "read")
    }

    func testPolicyExistsRLSDisabledOnlyServiceRoleIsDemoted() throws {
        let f = try prove(
            "policy_exists_rls_disabled",
            """
            create table public.notes (id int primary key, owner uuid);
            create policy "own notes" on public.notes for select using (owner = (select auth.uid()));
            grant all on public.notes to service_role;
            """)
        assertDemoted(f, "permission denied for table notes")
    }

    func testPolicyExistsRLSDisabledOutsideTheAPIIsDemoted() throws {
        let f = try prove(
            "policy_exists_rls_disabled",
            """
            create schema private;
            create table private.notes (id int primary key, owner uuid);
            create policy "own notes" on private.notes for select using (owner = (select auth.uid()));
            grant select on private.notes to anon;
            """)
        assertDemoted(f, "permission denied for schema private")
    }

    // MARK: 0023 sensitive_columns_exposed

    func testSensitiveColumnsProven() throws {
        let f = try prove(
            "sensitive_columns_exposed",
            """
            create table public.accounts (id int primary key, email text, password text);
            insert into public.accounts values (7, 'a@example.test', 'hunter2');
            grant select on public.accounts to anon;
            """)
        assertProven(f, actor: "anon", effect: "read with password")
        XCTAssertEqual(f[0].proof?.rows, 2)
    }

    func testSensitiveColumnsInSchemaAnonCannotUseIsDemoted() throws {
        let f = try prove(
            "sensitive_columns_exposed",
            """
            create schema api;
            create table api.accounts (id int primary key, email text, password text);
            grant select on api.accounts to anon;
            """, schemas: ["api"])
        assertDemoted(f, "permission denied for schema api")
    }

    func testSensitiveColumnsEmptyUnseedableTableIsDemoted() throws {
        let f = try prove(
            "sensitive_columns_exposed",
            """
            create table public.devices (id int primary key, token text, spot point not null);
            grant select on public.devices to anon;
            """)
        assertDemoted(f, "could not seed a row")
    }

    // MARK: 1002 auth_uid_is_null_disjunct

    static let nullDisjunct = """
        create table public.notes (id int primary key, owner uuid references auth.users);
        alter table public.notes enable row level security;
        grant select on public.notes to anon, authenticated;
        create policy "own notes" on public.notes for select %@
          using ((select auth.uid()) is null or owner = (select auth.uid()));
        """

    func testNullDisjunctProvenByAnon() throws {
        let f = try prove("auth_uid_is_null_disjunct", Self.nullDisjunct.replacingOccurrences(of: "%@", with: ""))
        assertProven(f, actor: "anon", effect: "read", keys: ["id=2"])
        XCTAssertTrue(f[0].proof!.sql.lowercased().contains("is null"), f[0].proof!.sql)
    }

    func testNullDisjunctForAuthenticatedOnlyIsDemoted() throws {
        let f = try prove(
            "auth_uid_is_null_disjunct", Self.nullDisjunct.replacingOccurrences(of: "%@", with: "to authenticated"))
        assertDemoted(f, "applies to authenticated only")
    }

    func testNullDisjunctBlockedByRestrictivePolicyIsDemoted() throws {
        let f = try prove(
            "auth_uid_is_null_disjunct",
            Self.nullDisjunct.replacingOccurrences(of: "%@", with: "")
                + "\ncreate policy \"signed in\" on public.notes as restrictive for select using ((select auth.uid()) is not null);"
        )
        assertDemoted(f, "reached no row of another user")
    }

    // MARK: 1006 policy_self_comparison

    static let selfComparison = """
        create table public.memberships (user_id uuid, organization_id uuid);
        create table public.projects (id int primary key, organization_id uuid);
        alter table public.projects enable row level security;
        create policy "members read projects" on public.projects for select to authenticated using (
          exists (select 1 from public.memberships where memberships.user_id = (select auth.uid())
                  and memberships.organization_id = memberships.organization_id));
        grant select on public.projects to authenticated;
        """

    func testSelfComparisonProvenByMemberOfAnotherGroup() throws {
        let f = try prove(
            "policy_self_comparison", Self.selfComparison + "grant select on public.memberships to authenticated;")
        assertProven(f, actor: "a stranger", effect: "read", keys: ["id=2"])
        XCTAssertTrue(f[0].proof!.actor.contains("public.memberships"), f[0].proof!.actor)
    }

    /// The member's user column references a profile table (made at sign-up, or not), not
    /// auth.users: the stranger's membership needs the profile row first.
    func testSelfComparisonProvenThroughAProfileTable() throws {
        for profiles in [
            // a profile made by a sign-up trigger; the membership's user column nullable
            """
            create table public.users (id uuid primary key references auth.users on delete cascade, email text);
            create function public.on_signup() returns trigger language plpgsql security definer set search_path = '' as $$
              begin insert into public.users (id, email) values (new.id, new.email); return new; end $$;
            create trigger on_signup after insert on auth.users for each row execute function public.on_signup();
            """,
            // no trigger: rlskit inserts the profile, which has a NOT NULL column of its own
            """
            create table public.users (id uuid primary key references auth.users on delete cascade, handle text not null);
            """,
        ] {
            let f = try prove(
                "policy_self_comparison",
                profiles
                    + Self.selfComparison.replacingOccurrences(
                        of: "memberships (user_id uuid,", with: "memberships (user_id uuid references public.users,")
                    + "grant select on public.memberships to authenticated;")
            assertProven(f, actor: "a stranger", effect: "read", keys: ["id=2"])
        }
    }

    func testSelfComparisonWithMembershipsClosedIsDemoted() throws {
        let f = try prove("policy_self_comparison", Self.selfComparison)
        assertDemoted(f, "permission denied for table memberships")
    }

    func testSelfComparisonWithMembershipsUnderRLSIsDemoted() throws {
        let f = try prove(
            "policy_self_comparison",
            Self.selfComparison
                + "grant select on public.memberships to authenticated;\nalter table public.memberships enable row level security;"
        )
        assertDemoted(f, "does not pass the policy")
    }

    // MARK: 1007 uncorrelated_policy_subquery

    static let uncorrelated = """
        create table public.memberships (user_id uuid, organization_id uuid);
        create function public.my_org_ids() returns setof uuid language sql stable security definer
          set search_path = '' as $$ select organization_id from public.memberships where user_id = auth.uid() $$;
        create table public.profiles (id uuid primary key, organization_id uuid);
        alter table public.profiles enable row level security;
        create policy "members read profiles" on public.profiles for select to authenticated using (
          exists (select 1 from public.memberships
                  where memberships.organization_id in (select public.my_org_ids())));
        grant select on public.profiles to authenticated;
        """

    func testUncorrelatedSubqueryProven() throws {
        let f = try prove(
            "uncorrelated_policy_subquery", Self.uncorrelated + "grant select on public.memberships to authenticated;")
        assertProven(f, actor: "a stranger", effect: "read")
    }

    func testUncorrelatedSubqueryWithMembershipsUnderRLSIsDemoted() throws {
        let f = try prove(
            "uncorrelated_policy_subquery",
            Self.uncorrelated
                + "grant select on public.memberships to authenticated;\nalter table public.memberships enable row level security;"
        )
        assertDemoted(f, "does not pass the policy")
    }

    func testUncorrelatedSubqueryWithoutGrantIsDemoted() throws {
        let f = try prove("uncorrelated_policy_subquery", Self.uncorrelated)
        assertDemoted(f, "permission denied for table memberships")
    }

    // MARK: helpers read inline (1006, 1007) and 1013 policy_subquery_column_shadowed

    static let shadowedInHelper = """
        create table public.members (user_id uuid, team_id uuid);
        create table public.tasks (id int primary key, team_id uuid);
        create function public.in_team(team uuid) returns boolean language sql stable as $$
          select exists (select 1 from public.members m where m.user_id = auth.uid() and m.team_id = team_id)
        $$;
        alter table public.tasks enable row level security;
        create policy "team reads tasks" on public.tasks for select to authenticated using (public.in_team(team_id));
        grant select on public.tasks to authenticated;
        """

    func testShadowedColumnInHelperProvenByMemberOfAnotherTeam() throws {
        let f = try prove(
            "policy_subquery_column_shadowed",
            Self.shadowedInHelper + "grant select on public.members to authenticated;")
        assertProven(f, actor: "a stranger", effect: "read")
        // The membership the exploit needs is in the helper's body, not in the policy.
        XCTAssertTrue(f[0].proof!.actor.contains("public.members"), f[0].proof!.actor)
    }

    func testShadowedColumnInHelperWithMembersUnderRLSIsDemoted() throws {
        let f = try prove(
            "policy_subquery_column_shadowed",
            Self.shadowedInHelper
                + "grant select on public.members to authenticated;\nalter table public.members enable row level security;"
        )
        assertDemoted(f, "does not pass the policy")
    }

    func testSelfComparisonInDefinerHelperProven() throws {
        let f = try prove(
            "policy_self_comparison",
            """
            create table public.memberships (user_id uuid, organization_id uuid);
            create table public.projects (id int primary key, organization_id uuid);
            create function public.is_member(organization_id uuid) returns boolean language sql stable
              security definer set search_path = '' as $$
              select exists (select 1 from public.memberships
                             where organization_id = organization_id and user_id = auth.uid())
            $$;
            alter table public.projects enable row level security;
            create policy "members read projects" on public.projects for select to authenticated
              using (public.is_member(organization_id));
            grant select on public.projects to authenticated;
            """)
        // SECURITY DEFINER: memberships need no grant for the helper to read them.
        assertProven(f, actor: "a stranger", effect: "read", keys: ["id=2"])
        XCTAssertTrue(f[0].detail.contains("calls public.is_member()"), f[0].detail)
    }

    func testUncorrelatedHelperProven() throws {
        let f = try prove(
            "uncorrelated_policy_subquery",
            """
            create table public.memberships (user_id uuid, organization_id uuid);
            create function public.my_org_ids() returns setof uuid language plpgsql stable security definer
              set search_path = '' as $$ declare me uuid := auth.uid();
              begin return query select organization_id from public.memberships where user_id = me; end $$;
            create table public.invoices (id uuid primary key, organization_id uuid);
            create function public.can_read_invoice(invoice_org uuid) returns boolean language sql stable
              security definer set search_path = '' as $$
              select exists (select 1 from public.memberships
                             where memberships.organization_id in (select public.my_org_ids()))
            $$;
            alter table public.invoices enable row level security;
            create policy "members read invoices" on public.invoices for select to authenticated
              using (public.can_read_invoice(organization_id));
            grant select on public.invoices to authenticated;
            """)
        assertProven(f, actor: "a stranger", effect: "read")
    }

    // MARK: 1003 with_check_weaker_than_using

    static let handOver = """
        create table public.notes (id int primary key, owner uuid references auth.users, body text);
        alter table public.notes enable row level security;
        create policy "read own notes" on public.notes for select to authenticated using (owner = (select auth.uid()));
        create policy "edit own notes" on public.notes for update to authenticated
          using (owner = (select auth.uid())) with check (body <> '');
        grant select on public.notes to authenticated;
        """

    func testWithCheckWeakerProvenByHandOver() throws {
        let f = try prove(
            "with_check_weaker_than_using", Self.handOver + "grant update on public.notes to authenticated;")
        assertProven(f, actor: "user A", effect: "handed to user B", keys: ["id=2"])
        XCTAssertTrue(f[0].proof!.request.hasPrefix("PATCH /rest/v1/notes {\"owner\": "), f[0].proof!.request)
        // With a filter, the new row must pass the SELECT policy too: only the unfiltered request moves it.
        XCTAssertTrue(f[0].proof!.effect.contains("with no filter only"), f[0].proof!.effect)
    }

    func testWithCheckWeakerProvenWithFilterWhenRowsArePublic() throws {
        let f = try prove(
            "with_check_weaker_than_using",
            Self.handOver.replacingOccurrences(of: "using (owner = (select auth.uid()));", with: "using (true);")
                + "grant update on public.notes to authenticated;")
        assertProven(f, actor: "user A", effect: "handed to user B", keys: ["id=2"])
        XCTAssertTrue(f[0].proof!.request.hasPrefix("PATCH /rest/v1/notes?id=eq.2 {\"owner\": "), f[0].proof!.request)
        XCTAssertEqual(f[0].proof!.effect, "handed to user B")
    }

    func testWithCheckWeakerWithColumnGrantIsDemoted() throws {
        let f = try prove(
            "with_check_weaker_than_using", Self.handOver + "grant update (body) on public.notes to authenticated;")
        assertDemoted(f, "permission denied for table notes")
    }

    func testWithCheckWeakerWithOwnerKeepingTriggerIsDemoted() throws {
        let f = try prove(
            "with_check_weaker_than_using",
            Self.handOver + """
                grant update on public.notes to authenticated;
                create function public.keep_owner() returns trigger language plpgsql as $$
                begin new.owner := old.owner; return new; end $$;
                create trigger keep_owner before update on public.notes for each row execute function public.keep_owner();
                """)
        assertDemoted(f, "changed no row")
    }

    // MARK: 0028 anon_security_definer_function_executable

    func testDefinerFunctionProvenByWrite() throws {
        let f = try prove(
            "anon_security_definer_function_executable",
            """
            create table public.notes (id bigint generated always as identity primary key, body text);
            create function public.add_note(b text) returns void language sql security definer set search_path = ''
              as $$ insert into public.notes (body) values (b) $$;
            """)
        assertProven(f, actor: "anon", effect: "wrote")
        XCTAssertEqual(f[0].proof?.request, "POST /rest/v1/rpc/add_note")
    }

    func testDefinerFunctionThatRaisesIsDemoted() throws {
        let f = try prove(
            "anon_security_definer_function_executable",
            """
            create table public.secrets (id int primary key, value text);
            create function public.get_secret(p_id int) returns text language plpgsql security definer set search_path = ''
              as $$ declare s text; begin
                if not exists (select 1 from public.secrets where value = 'enabled') then raise exception 'closed'; end if;
                select value into strict s from public.secrets where id = p_id; return s; end $$;
            """)
        assertDemoted(f, "anon's call raised")
    }

    func testDefinerFunctionThatDoesNothingVisibleIsDemoted() throws {
        let f = try prove(
            "anon_security_definer_function_executable",
            """
            create function public.answer() returns int language sql security definer set search_path = '' as $$ select 42 $$;
            """)
        assertDemoted(f, "changed no row and returned no other user's row")
    }

    // MARK: 0002 auth_users_exposed, 0010 security_definer_view

    func testAuthUsersViewProvenByAnon() throws {
        let f = try prove(
            "auth_users_exposed",
            "create view public.user_emails as select id, email from auth.users; grant select on public.user_emails to anon;"
        )
        assertProven(f, actor: "anon", effect: "read another user's auth.users data")
        XCTAssertEqual(f[0].proof?.request, "GET /rest/v1/user_emails?select=*")
    }

    func testAuthUsersViewsProvenByStranger() throws {
        for exposed in [
            "create view public.user_names as select u.email, u.raw_user_meta_data ->> 'name' as name from auth.users u;",
            // made before anyone signed up: the proof refreshes it
            "create materialized view public.user_names as select id from auth.users;",
        ] {
            let f = try prove("auth_users_exposed", exposed + "grant select on public.user_names to authenticated;")
            assertProven(f, actor: "a stranger", effect: "read another user's auth.users data")
        }
    }

    func testAuthUsersViewOfTheCallerOnlyIsDemoted() throws {
        let f = try prove(
            "auth_users_exposed",
            """
            create view public.me as select id, email from auth.users where id = auth.uid();
            grant select on public.me to anon, authenticated;
            """)
        assertDemoted(f, "read no other user's row")
    }

    static let notes = """
        create table public.notes (id int primary key, owner uuid references auth.users, body text);
        alter table public.notes enable row level security;
        create policy "own notes" on public.notes for select to authenticated using (owner = (select auth.uid()));
        grant select, insert on public.notes to anon, authenticated, service_role;
        """

    func testDefinerViewProvenByStranger() throws {
        for view in [
            "create view public.all_notes as select id, body from public.notes;",
            // a join and an aggregate read through the owner's rights too
            "create view public.all_notes as select n.owner, count(*) as c from public.notes n group by n.owner;",
        ] {
            let f = try prove(
                "security_definer_view", Self.notes + view + "grant select on public.all_notes to anon, authenticated;")
            assertProven(f, actor: "anon", effect: "read rows the tables' own policies hide")
        }
    }

    func testDefinerViewShowingNoMoreThanThePoliciesIsDemoted() throws {
        for view in [
            "create view public.all_notes as select id, body from public.notes where owner = (select auth.uid());",
            "create view public.all_notes as select id, body from public.notes where false;",
        ] {
            let f = try prove(
                "security_definer_view", Self.notes + view + "grant select on public.all_notes to anon, authenticated;")
            assertDemoted(f, "no more than directly")
        }
    }

    // MARK: 1008 null_defeated_guard

    static let members = "create table public.members (account uuid, user_id uuid references auth.users, role text);\n"

    func testNullDefeatedGuardProvenByAnon() throws {
        let f = try prove(
            "null_defeated_guard",
            Self.members + """
                create function public.promote(acct uuid, member_id uuid) returns void language plpgsql
                  security definer set search_path = '' as $$
                declare v_role text;
                begin
                  select role into v_role from public.members where account = acct and user_id = auth.uid();
                  if v_role <> 'owner' then raise exception 'only owners'; end if;
                  update public.members set role = 'owner' where account = acct and user_id = member_id;
                end $$;
                """)
        assertProven(f, actor: "anon", effect: "got past the guard, wrote")
    }

    func testNullDefeatedGuardProvenByStranger() throws {
        let f = try prove(
            "null_defeated_guard",
            Self.members + """
                create function public.caller_role(acct uuid) returns jsonb language sql stable set search_path = ''
                  as $$ select jsonb_build_object('account_role', role) from public.members
                        where account = acct and user_id = auth.uid() $$;
                create function public.remove_member(acct uuid, user_id uuid) returns void language plpgsql
                  security definer set search_path = '' as $$
                begin
                  if not ((select public.caller_role(acct)) ->> 'account_role' = 'owner') then raise exception 'only owners'; end if;
                  delete from public.members m where m.account = acct and m.user_id = remove_member.user_id;
                end $$;
                revoke execute on function public.remove_member(uuid, uuid) from public, anon;
                grant execute on function public.remove_member(uuid, uuid) to authenticated;
                """)
        assertProven(f, actor: "a stranger", effect: "got past the guard, wrote")
    }

    func testNullDefeatedGuardWhoseWriteIsTheCallersOwnIsDemoted() throws {
        let f = try prove(
            "null_defeated_guard",
            Self.members + """
                create function public.leave(acct uuid) returns void language plpgsql security definer set search_path = '' as $$
                declare v_role text;
                begin
                  select role into v_role from public.members where account = acct and user_id = auth.uid();
                  if v_role <> 'member' then raise exception 'not a member'; end if;
                  delete from public.members where account = acct and user_id = auth.uid();
                end $$;
                """)
        assertDemoted(f, "changed no row")
    }

    // MARK: 1001 storage_write_without_owner_check

    func testStorageUploadAnywhereProven() throws {
        for (policy, actor) in [
            ("create policy \"up\" on storage.objects for insert with check (bucket_id = 'avatars');", "anon"),
            // members of any team may upload anywhere: a stranger with a team of their own
            (
                """
                create policy "up" on storage.objects for insert to authenticated with check (
                  bucket_id = 'avatars' and auth.uid() is not null and storage.extension(name) = 'png');
                """, "a stranger"
            ),
        ] {
            let f = try prove(
                "storage_write_without_owner_check",
                "insert into storage.buckets (id, name) values ('avatars', 'avatars');\n" + policy)
            assertProven(f, actor: actor, effect: "uploaded under another user's id (")
        }
    }

    func testStorageOverwriteAnywhereProven() throws {
        let f = try prove(
            "storage_write_without_owner_check",
            """
            create policy "replace" on storage.objects for update to authenticated using (bucket_id = 'docs');
            create policy "read" on storage.objects for select to authenticated using (bucket_id = 'docs');
            """)
        assertProven(f, actor: "a stranger", effect: "overwrote another user's object")
    }

    func testStorageWriteStoppedElsewhereIsDemoted() throws {
        // The lint sees no owner check in the policy, but a restrictive policy ties the folder.
        let f = try prove(
            "storage_write_without_owner_check",
            """
            insert into storage.buckets (id, name) values ('avatars', 'avatars');
            create policy "up" on storage.objects for insert to authenticated with check (bucket_id = 'avatars');
            create policy "own folder" on storage.objects as restrictive for insert to authenticated
              with check ((storage.foldername(name))[1] = (select auth.uid())::text);
            """)
        assertDemoted(f, "upload was denied")
    }

    static let privateNotes = """
        create table public.teams (id uuid primary key default gen_random_uuid(), name text);
        create table public.notes (id uuid primary key default gen_random_uuid(), owner uuid references auth.users,
                                   team uuid not null references public.teams, body text);
        alter table public.notes enable row level security;
        create policy "own notes" on public.notes for select to authenticated using (owner = (select auth.uid()));
        grant select on public.notes to anon, authenticated;
        """

    func testDefinerFunctionLeakingAValueNotAnIdProven() throws {
        let f = try prove(
            "anon_security_definer_function_executable",
            Self.privateNotes + """
                create function public.note_body(p_id uuid) returns text language sql security definer set search_path = ''
                  as $$ select body from public.notes where id = p_id $$;
                """)
        // Only the body comes back: recognised as the victim's by its seeded value.
        assertProven(f, actor: "anon", effect: "returned another user's rows")
    }

    func testDefinerFunctionLeakingThroughAnotherGroupsKeyProven() throws {
        let f = try prove(
            "anon_security_definer_function_executable",
            Self.privateNotes + """
                create function public.board(t uuid) returns setof text language sql security definer set search_path = ''
                  as $$ select body from public.notes where team = t $$;
                """)
        // `t` names nothing the probe knows: the seeded team's key is tried in it.
        assertProven(f, actor: "anon", effect: "returned another user's rows")
    }

    func testDefinerFunctionReturningOnlyPublicRowsIsDemoted() throws {
        let f = try prove(
            "anon_security_definer_function_executable",
            """
            create table public.posts (id uuid primary key default gen_random_uuid(), title text);
            alter table public.posts enable row level security;
            create policy "public posts" on public.posts for select using (true);
            grant select on public.posts to anon;
            create function public.titles() returns setof text language sql security definer set search_path = ''
              as $$ select title from public.posts $$;
            """)
        assertDemoted(f, "returned no other user's row (another user's rows seeded in public.posts)")
    }

    func testDefinerFunctionReturningOnlyTheCallersRowsIsDemoted() throws {
        let f = try prove(
            "anon_security_definer_function_executable",
            Self.privateNotes + """
                create function public.my_bodies() returns setof text language sql security definer set search_path = ''
                  as $$ select body from public.notes where owner = auth.uid() $$;
                """)
        // The body reads by the caller: listed for review only, nothing to prove.
        XCTAssertEqual(f.first?.level, .info)
        XCTAssertNil(f.first?.proof)
    }

    // MARK: the rest

    func testLintWithoutExploitIsDemotedWithTheReason() throws {
        let f = try prove(
            "fkey_to_auth_unique",
            """
            create table public.contacts (id int primary key, phone text references auth.users (phone));
            """)
        assertDemoted(f, "no exploit written for this lint yet")
    }

    // MARK: reports

    func testEveryReportCarriesTheProof() throws {
        let f = try prove(
            "rls_disabled_in_public",
            """
            create table public.notes (id int primary key, body text);
            grant select on public.notes to anon;
            """)
        let result = AuditResult(
            findings: f, exposed: ExposedSchemas(names: ["public"], origin: .given("given")), missingSchemas: [],
            failedLints: [:], lintsRun: [Lint.rlsDisabledInPublic], seconds: 0)
        let report = AuditReport(result: result)
        let line = "proof: as anon, GET /rest/v1/notes?select=* read 1 row (id=2); rolled back"
        XCTAssertTrue(report.text(color: false).contains("\n    " + line + "\n"), report.text(color: false))
        XCTAssertTrue(report.summaryLine.hasPrefix("1 error (proven), 0 warnings, 0 info"), report.summaryLine)
        XCTAssertTrue(report.json().contains("\"request\": \"GET /rest/v1/notes?select=*\""), report.json())
        XCTAssertTrue(report.sarif().contains("\"proof_keys\": \"id=2\""), report.sarif())
        XCTAssertTrue(report.sarif().contains(line), report.sarif())
        XCTAssertTrue(report.github().contains(line))
        let check = ProjectCheck.Report(
            phases: [], migrations: Migrator.Result(standIn: nil, plan: [], applied: [], unknownVersions: []),
            tests: TestReport(), problems: [], audit: report, failOn: .error)
        XCTAssertTrue(check.testsWithAudit.outcomes.contains { $0.message?.contains(line) == true })
        let html = HTMLReport(command: "check", verdict: "failed", facts: [], tests: TestReport(), audit: report)
        XCTAssertTrue(html.findings(report).contains("<span class=\"proof\">\(line)</span>"))
        let read = AuditReport(result: result.markedReadOnly())
        XCTAssertTrue(read.text(color: false).contains("\n    proof: as anon"), "a proof already made stays")
    }

    func testReadOnlyAuditSaysNotProven() {
        var f = Finding(
            lint: .rlsDisabledInPublic,
            draft: FindingDraft(object: AuditObject(schema: "public", name: "notes", kind: "table"), detail: "d"))
        f.proof = nil
        let result = AuditResult(
            findings: [f], exposed: ExposedSchemas(names: ["public"], origin: .given("given")), missingSchemas: [],
            failedLints: [:], lintsRun: [Lint.rlsDisabledInPublic], seconds: 0
        ).markedReadOnly()
        let report = AuditReport(result: result)
        XCTAssertEqual(report.findings[0].level, .error)
        XCTAssertTrue(report.text(color: false).contains("\n    not proven (read-only)\n"))
        XCTAssertTrue(report.summaryLine.hasPrefix("1 error (not proven: read-only), 0 warnings"), report.summaryLine)
        XCTAssertTrue(report.json().contains("\"outcome\": \"read_only\""), report.json())
    }
}
