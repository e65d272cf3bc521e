import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// A user belongs to one organisation through a column of their profile (made at sign-up by a
/// trigger): joining an organisation is changing that column, the classic hole.
final class OnePerUserGroupTests: XCTestCase {
    static let schema = """
        create table public.orgs (id uuid primary key default gen_random_uuid(), name text not null);
        create table public.profiles (
          id uuid primary key references auth.users (id) on delete cascade,
          org_id uuid references public.orgs (id),
          full_name text not null default ''
        );
        create function public.handle_new_user() returns trigger language plpgsql security definer set search_path = '' as $$
          begin insert into public.profiles (id) values (new.id); return new; end $$;
        create trigger on_auth_user_created after insert on auth.users for each row execute function public.handle_new_user();
        create function public.my_org() returns uuid language sql stable security definer set search_path = '' as $$
          select org_id from public.profiles where id = (select auth.uid()) $$;
        create table public.documents (
          id bigint generated always as identity primary key,
          org_id uuid not null references public.orgs (id),
          title text not null
        );
        alter table public.orgs enable row level security;
        alter table public.profiles enable row level security;
        alter table public.documents enable row level security;
        grant select, insert, update, delete on public.orgs, public.documents to authenticated;
        grant select, insert, delete on public.profiles to authenticated;
        grant update (full_name) on public.profiles to authenticated;
        grant all on public.orgs, public.profiles, public.documents to service_role;
        grant usage on all sequences in schema public to authenticated, service_role;
        create policy org_read on public.orgs for select to authenticated using (id = public.my_org());
        create policy profile_read on public.profiles for select to authenticated using (org_id = public.my_org() or id = (select auth.uid()));
        create policy profile_edit on public.profiles for update to authenticated using (id = (select auth.uid())) with check (id = (select auth.uid()));
        create policy doc_read on public.documents for select to authenticated using (org_id = public.my_org());
        create policy doc_add on public.documents for insert to authenticated with check (org_id = public.my_org());
        create policy doc_edit on public.documents for update to authenticated using (org_id = public.my_org()) with check (org_id = public.my_org());
        create policy doc_drop on public.documents for delete to authenticated using (org_id = public.my_org());
        """

    static let access = """
        members public.profiles
          group org_id
          user id
          read members
          add nobody
          remove nobody
          leave nobody

        table public.orgs
          group id
          read members
          write nobody

        table public.documents
          group org_id
          read members
          write members
        """

    func testMovingOneselfIntoAnotherOrganisationIsFound() throws {
        try IntentFixture.assertCatches(
            schema: Self.schema, access: Self.access,
            present: [
                "public.profiles: outsider joins G1 uninvited",
                "public.profiles: G1 member moves own membership into G2",
                "public.documents: G2 member reads G1's row", "public.orgs: outsider reads G1's row",
            ],
            bugs: [
                .init(
                    what: "every profile column is updatable, org_id included",
                    sql: "grant update on public.profiles to authenticated;",
                    fails: [
                        "public.profiles: outsider joins G1 uninvited",
                        "public.profiles: G1 member moves own membership into G2",
                    ]),
                .init(
                    what: "the sign-up trigger takes the organisation from user_metadata",
                    sql:
                        "create or replace function public.handle_new_user() returns trigger language plpgsql security definer set search_path = '' as $$ begin insert into public.profiles (id, org_id) values (new.id, nullif(new.raw_user_meta_data ->> 'org_id', '')::uuid); return new; end $$;",
                    fails: ["public.documents: M reads G1's row"]),
                .init(
                    what: "the organisation helper prefers user_metadata",
                    sql:
                        "create or replace function public.my_org() returns uuid language sql stable security definer set search_path = '' as $$ select coalesce(nullif((select auth.jwt()) -> 'user_metadata' ->> 'org_id', '')::uuid, (select org_id from public.profiles where id = (select auth.uid()))) $$;",
                    fails: ["public.documents: M reads G1's row"]),
                .init(
                    what: "documents readable across organisations",
                    sql:
                        "drop policy doc_read on public.documents; create policy r on public.documents for select to authenticated using (true);",
                    fails: ["public.documents: G2 member reads G1's row", "public.documents: outsider reads G1's row"]),
            ])
    }
}
