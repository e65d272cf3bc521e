import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// Tenancy through a claim the service sets (app_metadata.tenant_id, tenant_role): holders are
/// members, a user who writes the same keys into user_metadata is not.
final class ClaimGroupTests: XCTestCase {
    static let schema = """
        create table public.tenants (id uuid primary key default gen_random_uuid(), name text not null);
        create table public.invoices (
          id bigint generated always as identity primary key,
          tenant_id uuid not null references public.tenants (id),
          amount int not null
        );
        create function public.tenant() returns uuid language sql stable as $$
          select nullif((select auth.jwt()) -> 'app_metadata' ->> 'tenant_id', '')::uuid $$;
        create function public.tenant_role() returns text language sql stable as $$
          select (select auth.jwt()) -> 'app_metadata' ->> 'tenant_role' $$;
        alter table public.tenants enable row level security;
        alter table public.invoices enable row level security;
        grant select, insert, update, delete on public.tenants, public.invoices to authenticated;
        grant all on public.tenants, public.invoices to service_role;
        grant usage on all sequences in schema public to authenticated, service_role;
        create policy t_read on public.tenants for select to authenticated using (id = public.tenant());
        create policy i_read on public.invoices for select to authenticated using (tenant_id = public.tenant());
        create policy i_add on public.invoices for insert to authenticated with check (tenant_id = public.tenant());
        create policy i_edit on public.invoices for update to authenticated
          using (tenant_id = public.tenant() and public.tenant_role() = 'admin') with check (tenant_id = public.tenant());
        create policy i_drop on public.invoices for delete to authenticated
          using (tenant_id = public.tenant() and public.tenant_role() = 'admin');
        """

    static let access = """
        members claim app_metadata.tenant_id
          role app_metadata.tenant_role
          roles admin member

        table public.tenants
          group id
          read members
          write nobody

        table public.invoices
          group tenant_id
          read members
          insert members
          update members with role admin
          delete members with role admin
        """

    func testClaimHoldersAreMembersAndForgersAreNot() throws {
        try IntentFixture.assertCatches(
            schema: Self.schema, access: Self.access,
            present: [
                "public.invoices: forged G1 member reads G1's row",
                "public.invoices: G1 member forging admin deletes G1's row",
                "public.invoices: G2 admin reads G1's row", "public.tenants: G1 member reads G1's row",
            ],
            bugs: [
                .init(
                    what: "the tenant falls back to user_metadata",
                    sql:
                        "create or replace function public.tenant() returns uuid language sql stable as $$ select nullif(coalesce((select auth.jwt()) -> 'app_metadata' ->> 'tenant_id', (select auth.jwt()) -> 'user_metadata' ->> 'tenant_id'), '')::uuid $$;",
                    fails: [
                        "public.invoices: forged G1 member reads G1's row",
                        "public.tenants: forged G1 member reads G1's row",
                    ]),
                .init(
                    what: "the tenant role is read from user_metadata",
                    sql:
                        "create or replace function public.tenant_role() returns text language sql stable as $$ select coalesce((select auth.jwt()) -> 'user_metadata' ->> 'tenant_role', (select auth.jwt()) -> 'app_metadata' ->> 'tenant_role') $$;",
                    fails: ["public.invoices: G1 member forging admin deletes G1's row"]),
                .init(
                    what: "invoices of every tenant readable",
                    sql:
                        "drop policy i_read on public.invoices; create policy r on public.invoices for select to authenticated using (true);",
                    fails: ["public.invoices: G2 admin reads G1's row", "public.invoices: outsider reads G1's row"]),
            ])
    }

    func testClaimBlockMistakes() throws {
        for (text, wanted) in [
            ("members claim user_metadata.org\n", "a.rls:1: write 'members claim app_metadata.KEY'"),
            ("members claim app_metadata.org\n  group x\n", "a.rls:2: unknown setting 'group' for membership by claim"),
            (
                "members claim app_metadata.org\n  role app_metadata.r\n",
                "a.rls:2: members claim app_metadata.org has a role claim but no 'roles' line"
            ),
            (
                "members claim app_metadata.org\n  roles a b\n",
                "a.rls:2: members claim app_metadata.org lists roles but has no 'role' line"
            ),
        ] {
            XCTAssertThrowsError(try AccessFile.parse(text, path: "a.rls")) {
                XCTAssertTrue("\($0)".hasPrefix(wanted), "\($0)")
            }
        }
    }
}
