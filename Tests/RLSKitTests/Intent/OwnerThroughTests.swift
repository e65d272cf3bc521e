import Foundation
import TestSupport
import XCTest

@_spi(CLI) @testable import RLSKit

/// Rows owned through a parent: a product is its shop's owner's, a card its list's board's.
final class OwnerThroughTests: XCTestCase {
    static let shops = """
        create table public.shops (
          id uuid primary key default gen_random_uuid(),
          owner_id uuid not null references auth.users (id),
          name text not null
        );
        create table public.products (
          id bigint generated always as identity primary key,
          shop_id uuid not null references public.shops (id) on delete cascade,
          title text not null
        );
        alter table public.shops enable row level security;
        alter table public.products enable row level security;
        grant select, insert, update, delete on public.shops, public.products to authenticated;
        grant all on public.shops, public.products to service_role;
        create policy shops_own on public.shops for all to authenticated
          using (owner_id = auth.uid()) with check (owner_id = auth.uid());
        create policy products_read on public.products for select to authenticated
          using (exists (select 1 from public.shops s where s.id = shop_id and s.owner_id = auth.uid()));
        create policy products_add on public.products for insert to authenticated
          with check (exists (select 1 from public.shops s where s.id = shop_id and s.owner_id = auth.uid()));
        create policy products_edit on public.products for update to authenticated
          using (exists (select 1 from public.shops s where s.id = shop_id and s.owner_id = auth.uid()))
          with check (exists (select 1 from public.shops s where s.id = shop_id and s.owner_id = auth.uid()));
        create policy products_drop on public.products for delete to authenticated
          using (exists (select 1 from public.shops s where s.id = shop_id and s.owner_id = auth.uid()));
        """

    static let shopsAccess = """
        table public.shops
          owner owner_id
          read owner
          write owner
        table public.products
          owner shop_id through public.shops
          read owner
          write owner
        """

    func testProductsFollowTheirShopsOwner() throws {
        // A helper that runs past RLS: "some shop" instead of "my shop" is a leak the checks must see.
        let anyShop = """
            create function public.shop_exists(s uuid) returns boolean language sql stable security definer
              set search_path = '' as $$ select exists (select 1 from public.shops where id = s) $$;
            """
        try IntentFixture.assertCatches(
            schema: Self.shops, access: Self.shopsAccess,
            present: [
                "public.products: B reads A's row", "public.products: A inserts a row owned by B",
                "public.products: A hands own row over to B", "public.products: A deletes B's row",
            ],
            bugs: [
                .init(
                    what: "products readable by everyone signed in",
                    sql:
                        "drop policy products_read on public.products; create policy r on public.products for select to authenticated using (true);",
                    fails: ["public.products: A reads B's row", "public.products: B reads A's row"]),
                .init(
                    what: "products insertable into any shop",
                    sql: anyShop
                        + "drop policy products_add on public.products; create policy a on public.products for insert to authenticated with check (public.shop_exists(shop_id));",
                    fails: ["public.products: A inserts a row owned by B"]),
            ])
    }

    func testDocumentedExampleIsTheFixture() throws {
        let doc = try DocPage.block(startingWith: "table public.shops", in: "docs/access-files.md") + "\n"
        XCTAssertEqual(
            try AccessFile.parse(doc, path: "a.rls").tables,
            try AccessFile.parse(Self.shopsAccess, path: "a.rls").tables)
    }

    /// Three levels, the middle key nullable: a card is its list's board's owner's.
    static let boards = """
        create table public.boards (
          id bigint generated always as identity primary key,
          owner_id uuid not null references auth.users (id)
        );
        create table public.lists (
          id bigint generated always as identity primary key,
          board_id bigint references public.boards (id),
          name text not null
        );
        create table public.cards (
          id bigint generated always as identity primary key,
          list_id bigint not null references public.lists (id),
          body text not null
        );
        create function public.my_list(l bigint) returns boolean language sql stable security definer
          set search_path = '' as $$
          select exists (select 1 from public.lists li join public.boards b on b.id = li.board_id
                          where li.id = l and b.owner_id = auth.uid()) $$;
        create function public.my_board(x bigint) returns boolean language sql stable security definer
          set search_path = '' as $$ select exists (select 1 from public.boards where id = x and owner_id = auth.uid()) $$;
        alter table public.boards enable row level security;
        alter table public.lists enable row level security;
        alter table public.cards enable row level security;
        grant select, insert, update, delete on public.boards, public.lists, public.cards to authenticated;
        grant all on public.boards, public.lists, public.cards to service_role;
        grant usage on all sequences in schema public to authenticated, service_role;
        create policy boards_own on public.boards for all to authenticated
          using (owner_id = auth.uid()) with check (owner_id = auth.uid());
        create policy lists_own on public.lists for all to authenticated
          using (public.my_board(board_id)) with check (public.my_board(board_id));
        create policy cards_own on public.cards for all to authenticated
          using (public.my_list(list_id)) with check (public.my_list(list_id));
        """

    static let boardsAccess = """
        table public.boards
          owner owner_id
          read owner
          write owner
        table public.lists
          owner board_id through public.boards
          read owner
          write owner
        table public.cards
          owner list_id through public.lists
          read owner
          write owner
        """

    func testCardsFollowTheirBoardsOwnerThroughTwoParents() throws {
        try IntentFixture.assertCatches(
            schema: Self.boards, access: Self.boardsAccess,
            present: [
                "public.cards: B reads A's row", "public.cards: A inserts a row owned by B",
                "public.lists: B reads A's row", "public.cards: A hands own row over to B",
            ],
            bugs: [
                .init(
                    what: "cards readable on any list",
                    sql: """
                        create function public.any_list(l bigint) returns boolean language sql stable security definer
                          set search_path = '' as $$ select exists (select 1 from public.lists where id = l) $$;
                        drop policy cards_own on public.cards;
                        create policy c on public.cards for all to authenticated
                          using (public.any_list(list_id)) with check (public.my_list(list_id));
                        """,
                    fails: ["public.cards: B reads A's row", "public.cards: A deletes B's row"]),
                .init(
                    what: "lists with a board anyone may read",
                    sql: """
                        drop policy lists_own on public.lists;
                        create policy l on public.lists for all to authenticated
                          using (board_id is not null) with check (public.my_board(board_id));
                        """,
                    fails: ["public.lists: B reads A's row"]),
            ])
    }

    /// A two-column key (channel and workspace) to the parent: both columns follow it.
    static let channels = """
        create table public.channels (
          id bigint generated always as identity,
          workspace_id int not null check (workspace_id > 0),
          owner_id uuid not null references auth.users (id),
          primary key (id, workspace_id)
        );
        create table public.messages (
          id bigint generated always as identity primary key,
          channel_id bigint not null,
          workspace_id int not null,
          body text not null,
          foreign key (channel_id, workspace_id) references public.channels (id, workspace_id)
        );
        create function public.my_channel(c bigint, w int) returns boolean language sql stable security definer
          set search_path = '' as $$
          select exists (select 1 from public.channels where id = c and workspace_id = w and owner_id = auth.uid()) $$;
        alter table public.channels enable row level security;
        alter table public.messages enable row level security;
        grant select, insert, update, delete on public.channels, public.messages to authenticated;
        grant all on public.channels, public.messages to service_role;
        grant usage on all sequences in schema public to authenticated, service_role;
        create policy channels_own on public.channels for all to authenticated using (owner_id = auth.uid());
        create policy messages_own on public.messages for all to authenticated
          using (public.my_channel(channel_id, workspace_id)) with check (public.my_channel(channel_id, workspace_id));
        """

    func testMessagesFollowTheirChannelThroughATwoColumnKey() throws {
        let access = """
            table public.channels
              owner owner_id
              read owner
              write owner
            table public.messages
              owner channel_id through public.channels
              read owner
              write owner
            """
        try IntentFixture.assertCatches(
            schema: Self.channels, access: access,
            present: ["public.messages: B reads A's row", "public.messages: A hands own row over to B"],
            bugs: [
                .init(
                    what: "messages of any channel in the workspace",
                    sql: """
                        create function public.in_workspace(w int) returns boolean language sql stable security definer
                          set search_path = '' as $$ select exists (select 1 from public.channels where workspace_id = w) $$;
                        drop policy messages_own on public.messages;
                        create policy m on public.messages for all to authenticated
                          using (public.in_workspace(workspace_id)) with check (public.my_channel(channel_id, workspace_id));
                        """,
                    fails: ["public.messages: B reads A's row", "public.messages: A deletes B's row"])
            ])
    }

    func testOwnerThatReachesNoUserIsRefused() throws {
        // owner shop_id without 'through': the shop's id is not a user's id.
        let plain = Self.shopsAccess.replacingOccurrences(
            of: "owner shop_id through public.shops", with: "owner shop_id")
        XCTAssertThrowsError(try IntentFixture.run(Self.shops, access: plain, path: "a.rls")) {
            let text = "\($0)"
            XCTAssertTrue(text.contains("a.rls:6:"), text)
            XCTAssertTrue(text.contains("write 'owner shop_id through public.shops'"), text)
        }
        // A catalog row (its own generated key, no user anywhere) is nobody's.
        let catalog = """
            create table public.categories (id uuid primary key default gen_random_uuid(), name text not null);
            create table public.tags (
              id bigint generated always as identity primary key,
              category_id uuid not null references public.categories (id)
            );
            alter table public.tags enable row level security;
            grant all on public.tags, public.categories to service_role;
            """
        let access = "table public.tags\n  owner category_id\n  read owner\n  write owner\n"
        XCTAssertThrowsError(try IntentFixture.run(catalog, access: access, path: "b.rls")) {
            let text = "\($0)"
            XCTAssertTrue(text.contains("b.rls:2:"), text)
            XCTAssertTrue(text.contains("which reaches no user"), text)
        }
        // through a table the column has no key to.
        let wrong = Self.boardsAccess.replacingOccurrences(
            of: "owner list_id through public.lists", with: "owner list_id through public.boards")
        XCTAssertThrowsError(try IntentFixture.run(Self.boards, access: wrong, path: "c.rls")) {
            let text = "\($0)"
            XCTAssertTrue(text.contains("c.rls:10:"), text)
            XCTAssertTrue(text.contains("has no foreign key to public.boards"), text)
        }
    }

    /// `rlskit init` drafts the chain instead of calling the tables catalogs; the answered draft runs.
    func testInitDraftsOwnershipThroughParents() throws {
        let db = try StandIn.makeDatabase(prefix: "draft")
        defer { TestServer.drop(db.name) }
        let catalog = """
            create table public.colors (id bigint generated always as identity primary key, name text not null);
            create table public.swatches (id bigint generated always as identity primary key,
              color_id bigint not null references public.colors (id));
            alter table public.colors enable row level security;
            alter table public.swatches enable row level security;
            """
        _ = try db.conn.runScript(Self.boards + catalog)
        let d = try AccessDraft.run(on: db.connectionString)
        func owner(_ table: String) -> String? {
            let lines = d.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let i = lines.firstIndex(of: "table public.\(table)") else { return nil }
            return lines[(i + 1)...].prefix { !$0.isEmpty }.map(AccessFile.stripComment).first { $0.hasPrefix("owner") }
        }
        XCTAssertEqual(owner("boards"), "owner owner_id", d.text)
        XCTAssertEqual(owner("lists"), "owner board_id through public.boards", d.text)
        XCTAssertEqual(owner("cards"), "owner list_id through public.lists", d.text)
        XCTAssertNil(owner("swatches"), d.text)
        XCTAssertTrue(d.text.contains("references public.lists(id), owned through its own parent"), d.text)
        // Answered, the draft reads back with its chain.
        let answered = d.text.replacingOccurrences(of: "read ?", with: "read signed-in")
            .replacingOccurrences(of: "write ?", with: "write nobody")
        let parsed = try AccessFile.parse(answered, path: "access.rls")
        XCTAssertEqual(parsed.tables.first { $0.name == "cards" }?.ownerThrough, "public.lists")
    }

    func testOwnerThroughMistakes() throws {
        for (access, wanted) in [
            (
                "table public.products\n  owner shop_id through public.shops\n  read owner\n  write owner\n",
                "a.rls:2: table public.products: 'owner shop_id through public.shops' needs a 'table public.shops' block with an 'owner' line"
            ),
            (
                "table public.a\n  owner b_id through public.b\n  read owner\n  write owner\ntable public.b\n  owner a_id through public.a\n  read owner\n  write owner\n",
                "goes round in a circle"
            ),
            (
                "table public.products\n  owner shop_id via public.shops\n  read owner\n  write owner\n",
                "write 'owner column' or 'owner column through schema.table'"
            ),
        ] {
            XCTAssertThrowsError(try AccessFile.parse(access, path: "a.rls")) {
                XCTAssertTrue("\($0)".contains(wanted), "\($0)")
            }
        }
    }
}
