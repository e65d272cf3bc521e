import Postgres
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// A trigger on storage.objects reads what the Storage API sets on its requests (the headers,
/// the method): the inferred attack seeds and uploads with them set, so the bucket and the
/// tables the trigger fills are attacked; a header the API never sends is still a clear no.
final class StorageRequestTests: XCTestCase {
    /// A private bucket of per-user folders (with `readAny`, anyone lists every object, as a link would); each upload files a paper for its uploader, the
    /// caller's token forwarded (as apps hand it to an Edge Function).
    static func papers(trigger: String, readAny: Bool) -> String {
        """
        create table public.papers (id bigint generated always as identity primary key,
          title text not null, object_id uuid not null references storage.objects (id) on delete cascade,
          owner uuid not null references auth.users, forwarded text not null);
        alter table public.papers enable row level security;
        create policy "own papers" on public.papers for select to authenticated using (owner = (select auth.uid()));
        grant select on public.papers to authenticated;
        grant all on public.papers to service_role;
        create function public.file_paper() returns trigger language plpgsql security definer set search_path = '' as $$
          begin
            \(trigger)
            return null;
          end $$;
        create trigger file_paper after insert on storage.objects for each row execute function public.file_paper();
        insert into storage.buckets (id, name, public) values ('papers', 'papers', false);
        create policy "own papers upload" on storage.objects for insert to authenticated
          with check (bucket_id = 'papers' and (storage.foldername(name))[1] = (select auth.uid())::text);
        """
            + (readAny
                ? "create policy \"papers read\" on storage.objects for select using (bucket_id = 'papers');"
                : """
                create policy "own papers read" on storage.objects for select to authenticated
                  using (bucket_id = 'papers' and (storage.foldername(name))[1] = (select auth.uid())::text);
                """)
    }

    static let forwardsToken = """
        insert into public.papers (title, object_id, owner, forwarded)
              values (new.path_tokens[2], new.id, new.owner, current_setting('request.headers')::json->>'authorization');
        """
    static let postsOnly = """
        if current_setting('request.method') <> 'POST' or current_setting('request.path') not like '/object%' then
              raise exception 'uploads only';
            end if;
        """
    static let tenantHeader = """
        if current_setting('request.headers')::json->>'x-tenant' is null then raise exception 'no tenant header'; end if;
        """

    func attack(_ sql: String) throws -> InferredAttack.Result {
        let db = try StandIn.makeDatabase(prefix: "storagereq")
        defer {
            db.conn.close()
            TestServer.drop(db.name)
        }
        _ = try db.conn.runScript(sql)
        return try InferredAttack.run(
            schemas: ["public"], declared: [], options: HarnessOptions(), on: db.connectionString, ownsDatabase: true)
    }

    func notAttacked(_ r: InferredAttack.Result) -> [String] { r.notes.filter { $0.contains("not attacked") } }

    func testAForwardedTokenIsThereAndTheBucketsHoleIsFound() throws {
        let r = try attack(Self.papers(trigger: Self.forwardsToken, readAny: true))
        XCTAssertEqual(notAttacked(r), [])
        XCTAssertTrue(
            r.findings.contains {
                $0.object.name == "papers" && $0.object.kind == "bucket" && $0.detail.contains("lists")
            },
            "\(r.tables) \(r.notes) \(r.outcomes.map { $0.suite + ": " + $0.name + " " + ($0.got ?? "") })")
    }

    func testTheMethodAndPathAreThere() throws {
        let r = try attack(Self.papers(trigger: Self.postsOnly, readAny: true))
        XCTAssertEqual(notAttacked(r), [])
        XCTAssertTrue(r.findings.contains { $0.object.kind == "bucket" && $0.detail.contains("lists") })
    }

    func testCorrectPoliciesGiveNothingOnceAttacked() throws {
        let r = try attack(Self.papers(trigger: Self.forwardsToken, readAny: false))
        XCTAssertEqual(notAttacked(r), [])
        XCTAssertEqual(r.covered, r.tables.count, "\(r.tables) \(r.notes)")
        XCTAssertEqual(r.findings.map(\.detail), [])
    }

    /// A table under a filed paper: its parents are an object (uploaded by each user, and by anon,
    /// whose upload is owned by no one) and the paper the upload filed.
    func testATableUnderAnUploadedObjectIsSeeded() throws {
        // The paper's filer may be unknown, or required (anon's parents are then a user's).
        for filer in ["", " not null"] {
            let r = try attack(
                """
                create table public.filed (id bigint generated always as identity primary key, title text not null,
                  object_id uuid not null references storage.objects (id) on delete cascade,
                  created_by uuid\(filer) references auth.users);
                create table public.pages (id bigint generated always as identity primary key,
                  filed_id bigint not null references public.filed, body text);
                alter table public.filed enable row level security;
                alter table public.pages enable row level security;
                create policy "pages are readable" on public.pages for select using (true);
                grant select on public.pages to anon, authenticated;
                grant all on public.filed, public.pages to service_role;
                create function public.file_it() returns trigger language plpgsql security definer set search_path = '' as $$
                  begin
                    insert into public.filed (title, object_id, created_by) values (new.path_tokens[2], new.id, new.owner);
                    return null;
                  end $$;
                create trigger file_it after insert on storage.objects for each row execute function public.file_it();
                """)
            XCTAssertFalse(notAttacked(r).contains { $0.contains("public.pages") }, "\(r.notes)")
            XCTAssertTrue(r.tables.contains("public.pages"), "\(r.tables)")
        }
    }

    func testAHeaderTheAPINeverSendsIsStillNamed() throws {
        let r = try attack(Self.papers(trigger: Self.tenantHeader, readAny: true))
        XCTAssertTrue(notAttacked(r).contains { $0.contains("no tenant header") }, "\(r.notes)")
    }
}
