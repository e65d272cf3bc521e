import Postgres
import TestSupport
import XCTest

@testable import RLSKit

/// A text argument named after a column takes a row's value of it, which is what an update
/// wants and what a create refuses ("name already exists", a unique key): refused that way, the
/// call is tried once more with text no row holds, so the hole is proven, not left at WARN.
final class ProofFreshNameTests: XCTestCase {
    static let schema = """
        create table public.tags (id bigint generated always as identity primary key,
          name text not null unique, author uuid references auth.users);
        alter table public.tags enable row level security;
        create policy "tags are public" on public.tags for select using (true);
        grant select on public.tags to anon, authenticated;
        insert into public.tags (name) values ('first'), ('second');
        """

    func testARaisedDuplicateNameIsTriedAgainWithANewOne() throws {
        let f = try ProofFixture.prove(
            "anon_security_definer_function_executable",
            Self.schema + """
                create function public.add_tag_as(p_author uuid, p_name text) returns void language plpgsql
                  security definer set search_path = '' as $$
                begin
                  if exists (select 1 from public.tags t where t.name = p_name) then raise exception 'Name already exists'; end if;
                  insert into public.tags (name, author) values (p_name, p_author);
                end $$;
                """)
        ProofFixture.assertProven(f, actor: "anon", effect: "wrote")
    }

    func testAUniqueKeyViolationIsTriedAgainWithANewName() throws {
        let f = try ProofFixture.prove(
            "anon_security_definer_function_executable",
            Self.schema + """
                create function public.add_tags_as(p_author uuid, p_name text, p_other text) returns void language sql
                  security definer set search_path = '' as $$
                  insert into public.tags (name, author) values (p_name, p_author), (p_other, p_author) $$;
                """)
        ProofFixture.assertProven(f, actor: "anon", effect: "wrote")
    }

    /// A function that refuses every caller still refuses: the second try changes nothing.
    func testAFunctionThatRefusesEveryoneStaysDemoted() throws {
        let f = try ProofFixture.prove(
            "anon_security_definer_function_executable",
            Self.schema + """
                create function public.rename_tag(p_name text) returns void language plpgsql
                  security definer set search_path = '' as $$
                begin raise exception 'sign in first'; end $$;
                """)
        ProofFixture.assertDemoted(f, "sign in first")
    }
}
