import Postgres
import XCTest

@testable import RLSKit

/// Cases a lint lists at a lower level, and the wording of findings the examples only count.
extension LintExampleTests {
    func testDefinerFunctionsThatCheckTheCallerAreListedAtInfoWithTheReason() throws {
        let conn = try connection()
        let lint = try XCTUnwrap(LintRegistry.named("anon_security_definer_function_executable"))
        let expected = [
            "caller_role(), which checks the caller", "auth.uid()",
            "a lookup by its secret argument lookup_invitation_token", "current_setting('role')",
            "a lookup by its secret argument invite_code", "is_owner, filled from has_role(), which checks the caller",
            "caller_membership(), which raises unless the caller qualifies",
        ]
        for (example, reason) in zip(lint.nonTriggering.suffix(expected.count + 1), expected) {
            let findings = try run(lint, example.sql, conn)
            XCTAssertEqual(findings.map(\.level), [.info], example.sql)
            XCTAssertTrue(
                findings.first?.detail.contains("its body checks the caller with \(reason)") ?? false,
                findings.first?.detail ?? "no finding")
        }
        let predicate = try run(lint, try XCTUnwrap(lint.nonTriggering.last).sql, conn)
        XCTAssertEqual(predicate.map(\.level), [.info])
        XCTAssertTrue(
            predicate.first?.detail.contains(
                "it is a read-only yes/no test that policy \"shared assistant images\" on storage.objects calls, so anon must keep EXECUTE"
            ) ?? false, predicate.first?.detail ?? "no finding")
        // Without the check the same function is an ERROR.
        let plain = try run(lint, lint.triggering[0].sql, conn)
        XCTAssertEqual(plain.map(\.level), [.error])
    }

    func testInsertsThatCreateTheCallersRowOrAFormEntryAreListedAtInfo() throws {
        let conn = try connection()
        let lint = try XCTUnwrap(LintRegistry.named("rls_policy_always_true"))
        let expected = [
            ["each new row is the caller's own (a check constraint (CHECK ((author = auth.uid()))))"],
            ["each new row is the caller's own (a trigger that sets owner to auth.uid())"],
            [
                "no API role may read public.waitlist and no column names a user: a public form entry",
                "no API role may read public.contact_messages and no column names a user: a public form entry",
            ],
        ]
        for (example, reasons) in zip(lint.nonTriggering.suffix(expected.count), expected) {
            let findings = try run(lint, example.sql, conn).sorted { $0.detail < $1.detail }  // by policy name
            XCTAssertEqual(findings.map(\.level), reasons.map { _ in .info }, example.sql)
            for (f, r) in zip(findings, reasons) {
                XCTAssertTrue(f.detail.hasSuffix("; \(r), so it is listed for review only"), f.detail)
            }
        }
    }

    func testShadowedColumnIsAnErrorOnlyWhenTheComparisonBecomesAlwaysTrue() throws {
        let conn = try connection()
        let lint = try XCTUnwrap(LintRegistry.named("policy_subquery_column_shadowed"))
        var levels: [FindingLevel] = []
        for example in lint.triggering {
            let findings = try run(lint, example.sql, conn)
            XCTAssertEqual(findings.count, 1, example.sql)
            guard let f = findings.first else { continue }
            levels.append(f.level)
            let effect = f.level == .error ? "is always true" : "every request is denied"
            XCTAssertTrue(f.detail.contains(effect), f.detail)
        }
        // Two helpers whose comparison resolves to one column; the storage ones compare two of projects'.
        XCTAssertEqual(levels, [.error, .error, .warn, .warn, .warn])
    }

    func testStorageFindingNamesOnlyTheBucketsComparedWithBucketId() throws {
        let conn = try connection()
        let lint = try XCTUnwrap(LintRegistry.named("storage_write_without_owner_check"))
        let findings = try run(lint, lint.triggering[1].sql, conn)
        XCTAssertEqual(findings.count, 1)
        XCTAssertTrue(findings[0].detail.hasSuffix("upload anywhere in bucket logos: it checks no owner or folder"))
    }

    func testRestrictiveInsertFindingNamesTheUpdatePolicyAndColumn() throws {
        let conn = try connection()
        let lint = try XCTUnwrap(LintRegistry.named("restrictive_insert_bypassed_by_update"))
        let findings = try run(lint, lint.triggering[0].sql, conn)
        XCTAssertEqual(findings.count, 1)
        XCTAssertEqual(
            findings.first?.detail,
            "public.enrollments: restrictive policy \"open studies only\" checks only INSERT, but permissive policy \"own enrollments\" lets authenticated UPDATE study_id without that check (no restrictive UPDATE policy repeats it): a row can be moved where INSERT may not put it"
        )
    }

    func testDefinerFunctionsThatRefuseAnonFirstOrActOnlyForTheCallerAreInfo() throws {
        let conn = try connection()
        let anon = try XCTUnwrap(LintRegistry.named("anon_security_definer_function_executable"))
        let refused = try run(anon, anon.nonTriggering[2].sql, conn) + run(anon, anon.nonTriggering[3].sql, conn)
        XCTAssertEqual(refused.map(\.level), Array(repeating: .info, count: 5))
        for f in refused {
            XCTAssertTrue(f.detail.contains("which raises for every anon call whatever the arguments"), f.detail)
            XCTAssertTrue(f.remediation.hasPrefix("Nothing to change if every caller with the anon key"), f.remediation)
        }
        XCTAssertTrue(
            refused[0].detail.contains("its body starts with `if v_uid is null then raise`"), refused[0].detail)
        // A first raise on the arguments alone proves nothing about anon.
        for example in anon.triggering.suffix(2) {
            XCTAssertEqual(try run(anon, example.sql, conn).map(\.level), [.error], example.sql)
        }
        let signedIn = try XCTUnwrap(LintRegistry.named("authenticated_security_definer_function_executable"))
        let untied = try run(signedIn, signedIn.triggering[1].sql, conn)
        XCTAssertEqual(untied.map(\.level), [.warn])
        XCTAssertTrue(untied.first?.detail.contains("never ties its argument p_team to them") ?? false, "\(untied)")
        XCTAssertTrue(
            untied.first?.remediation.hasPrefix("In public.join_team(uuid), check that the caller may act on p_team")
                ?? false, "\(untied)")
        let scoped = try signedIn.nonTriggering.suffix(2).flatMap { try run(signedIn, $0.sql, conn) }
        XCTAssertEqual(scoped.map(\.level), [.info, .info, .info])
        for f in scoped {
            XCTAssertTrue(f.remediation.hasPrefix("Nothing to change if every signed-in user"), f.remediation)
        }
    }

    func testNullDefeatedGuardQuotesTheGuard() throws {
        let conn = try connection()
        let lint = try XCTUnwrap(LintRegistry.named("null_defeated_guard"))
        let findings = try run(lint, lint.triggering[0].sql, conn)
        XCTAssertEqual(findings.count, 1)
        XCTAssertTrue(findings[0].detail.contains("`if v_role <> 'owner' then raise`"), findings[0].detail)
        XCTAssertTrue(findings[0].detail.contains("callable by anon and authenticated"), findings[0].detail)
    }
}

extension LintExampleTests {
    func testPlatformObjectsAreNeverReportedWhateverIsExposed() throws {
        let conn = try connection()
        try conn.query("BEGIN")
        defer { _ = try? conn.query("ROLLBACK") }
        let platform = ["auth", "storage", "realtime", "extensions", "graphql_public", "vault", "supabase_functions"]
        let result = try Auditor.run(conn, exposedSchemas: ["public"] + platform)
        let reported = result.findings.filter { f in
            platform.contains(f.object.schema) && !Auditor.isUserPolicyOnPlatformTable(f.object)
        }
        XCTAssertEqual(reported.map(\.detail), [])
    }
}
