import Foundation
import TestSupport
import XCTest

@testable import RLSKit

/// Bucket blocks: per-operation settings, ownership models and upload files.
final class BucketParserTests: XCTestCase {
    func bucket(_ body: String) throws -> BucketIntent {
        try AccessFile.parse("bucket docs\n" + body, path: "a.rls").buckets[0]
    }

    func testPerOperationSettingsOverrideWrite() throws {
        let b = try bucket("  read owner\n  delete nobody\n  write owner\n  upsert nobody\n  rename nobody\n")
        XCTAssertEqual(b.model, .folder)
        XCTAssertEqual([b.upload, b.overwrite, b.move, b.delete], [.owner, .nobody, .nobody, .nobody])
        XCTAssertEqual(b.lister, .owner)
        XCTAssertEqual(b.settings["overwrite"]?.line, 5)
    }

    func testOwnFolderIsOwnerWithFolderOwnership() throws {
        let b = try bucket("  read public\n  write own-folder\n")
        XCTAssertEqual(b.ownership, .folder)
        XCTAssertEqual([b.upload, b.overwrite, b.move, b.delete], [.owner, .owner, .owner, .owner])
        XCTAssertEqual(b.read, .public)
        XCTAssertEqual(b.lister, .owner, "a public bucket lists the own folder only unless 'list' says more")
        XCTAssertEqual(try bucket("  read public\n  list signed-in\n  write owner\n").lister, .signedIn)
    }

    func testOwnerIDAndUploadFiles() throws {
        let b = try bucket(
            "  ownership owner-id\n  read signed-in\n  upload owner\n  overwrite signed-in\n  move owner\n  delete owner\n"
                + "  mime image/png image/*\n  size 2048\n")
        XCTAssertEqual(b.model, .ownerID)
        XCTAssertEqual(
            b.overwrite, .signedIn, "owner-id: the upsert's new row is the caller's, so upload owner suffices")
        XCTAssertEqual(b.mimeTypes, ["image/png", "image/*"])
        XCTAssertEqual(b.maxSize, 2048)
    }

    func testEveryMistakeIsOneLineWithFileAndLine() {
        let cases: [(String, String)] = [
            ("  ownership group\n", "a.rls:2: 'ownership group' needs group declarations"),
            ("  ownership team\n", "a.rls:2: unknown ownership value 'team': use folder | owner-id"),
            ("  ownership owner-id\n  write own-folder\n", "a.rls:3: 'write own-folder' means folder ownership"),
            (
                "  read owner\n  write own-folder\n  ownership owner-id\n",
                "a.rls:4: 'write own-folder' means folder ownership"
            ),
            ("  ownership folder\n  ownership owner-id\n", "a.rls:3: 'ownership' is already set at line 2"),
            ("  read owner\n  upload everyone\n", "a.rls:3: unknown upload value 'everyone'"),
            ("  read owner\n  delete public\n", "a.rls:3: unknown delete value 'public'"),
            ("  read owner\n  write everyone\n", "a.rls:3: unknown write value 'everyone'"),
            ("  read owner\n  overwrite nobody\n  upsert nobody\n", "a.rls:4: 'overwrite' is already set at line 3"),
            ("  read owner\n  upload\n", "a.rls:3: 'upload' takes one value"),
            ("  read owner\n  upload owner\n", "a.rls:1: bucket docs does not say who may overwrite"),
            ("  read owner\n", "a.rls:1: bucket docs has no 'write' line"),
            ("  write owner\n", "a.rls:1: bucket docs has no 'read' line"),
            ("  read owner\n  list owner\n  write owner\n", "a.rls:3: 'list' is for public buckets"),
            ("  read owner\n  list nobody\n  write owner\n", "a.rls:3: 'list' is for public buckets"),
            (
                "  read owner\n  write owner\n  upload nobody\n",
                "a.rls:3: bucket docs: overwrite owner but upload nobody"
            ),
            (
                "  read signed-in\n  write owner\n  overwrite signed-in\n",
                "a.rls:4: bucket docs: overwrite signed-in but upload owner"
            ),
            (
                "  read public\n  write signed-in\n",
                "a.rls:3: bucket docs: overwrite signed-in but only owner may list"
            ),
            (
                "  read owner\n  write owner\n  delete anyone\n",
                "a.rls:4: bucket docs: delete anyone but only owner may list"
            ),
            ("  read nobody\n  write owner\n", "a.rls:3: bucket docs: overwrite owner but only nobody may list"),
            ("  read owner\n  write owner\n  mime\n", "a.rls:4: 'mime' needs the types uploads may have"),
            ("  read owner\n  write owner\n  mime png\n", "a.rls:4: 'png' is not a MIME type"),
            ("  read owner\n  write owner\n  mime */png\n", "a.rls:4: '*/png' is not a MIME type"),
            ("  read owner\n  write owner\n  mime image/png\n  mime image/jpeg\n", "a.rls:5: 'mime' is already set"),
            ("  read owner\n  write owner\n  size 1MB\n", "a.rls:4: 'size' takes the largest upload in bytes"),
            ("  read owner\n  write owner\n  size 0\n", "a.rls:4: 'size' takes the largest upload in bytes"),
            ("  read owner\n  write owner\n  size\n", "a.rls:4: 'size' takes the largest upload in bytes"),
            ("  colour red\n", "a.rls:2: unknown bucket setting 'colour': use ownership, read, list, write"),
        ]
        for (body, prefix) in cases {
            XCTAssertThrowsError(try bucket(body)) { e in
                let line = "\(e)"
                XCTAssertTrue(line.hasPrefix(prefix), "\(body.debugDescription) → \(line)")
                XCTAssertFalse(line.contains("\n"))
            }
        }
    }

    /// Uploads carry what the Storage API writes: the declared type and size, else the bucket's.
    func testUploadFilesFollowTheAccessFileThenTheBucket() throws {
        let declared = try bucket("  read owner\n  write owner\n  mime image/*\n  size 300\n")
        let f = BucketUploads(intent: declared, facts: BucketFacts(sizeLimit: 5000, allowedTypes: ["application/pdf"]))
        XCTAssertEqual([f.mimetype, f.ext], ["image/png", "png"])
        XCTAssertEqual(f.size, 300)
        // The bucket takes PDFs, the access file does not: that is the type a policy must refuse.
        XCTAssertEqual(f.refusedType, "application/pdf")
        XCTAssertFalse(f.typeRefusedByBucket)
        XCTAssertEqual(f.refusedSize, 301)
        // The permission check carries only the type and declared length, as the Storage API's does.
        let checked = try JSONSerialization.jsonObject(with: Data(f.checked().utf8)) as! [String: Any]
        XCTAssertEqual(checked.count, 2)
        XCTAssertEqual(checked["mimetype"] as? String, "image/png")
        XCTAssertEqual(checked["contentLength"] as? Int, 300)
        let refused = try JSONSerialization.jsonObject(with: Data(f.checked(mimetype: "text/plain", size: 9).utf8))
        XCTAssertEqual((refused as? [String: Any])?["contentLength"] as? Int, 9)
        let stored = try JSONSerialization.jsonObject(with: Data(f.stored().utf8)) as! [String: Any]
        XCTAssertEqual(stored["mimetype"] as? String, "image/png")
        XCTAssertEqual(stored["size"] as? Int, 300)
        XCTAssertEqual(stored["contentLength"] as? Int, 300)
        XCTAssertEqual(stored["httpStatusCode"] as? Int, 200)
        XCTAssertEqual((stored["eTag"] as? String)?.count, 34)

        let plain = try bucket("  read owner\n  write owner\n")
        let g = BucketUploads(intent: plain, facts: BucketFacts(sizeLimit: 100, allowedTypes: ["application/pdf"]))
        XCTAssertEqual([g.mimetype, g.ext], ["application/pdf", "pdf"])
        XCTAssertEqual(g.size, 100)
        XCTAssertNil(g.refusedType, "without a 'mime' line the Storage API, not a policy, refuses other types")
        XCTAssertNil(g.refusedSize)
        XCTAssertEqual(BucketUploads(intent: plain, facts: BucketFacts()).mimetype, "image/png")

        let text = try bucket("  read owner\n  write owner\n  mime text/*\n")
        XCTAssertEqual(BucketUploads(intent: text, facts: BucketFacts()).refusedType, "application/x-msdownload")
        XCTAssertNil(
            BucketUploads(intent: try bucket("  read owner\n  write owner\n  mime */*\n"), facts: BucketFacts())
                .refusedType)
    }

    /// Random bucket blocks from the language's own words: a file parses or gives one `file:line:` line.
    func testRandomBucketBlocksNeverCrash() {
        var rng = SeededGenerator.printed(20_261_214)
        let keys = [
            "ownership", "read", "list", "write", "upload", "overwrite", "upsert", "move", "rename", "delete", "mime",
            "size", "owner",
        ]
        let values = [
            "folder", "owner-id", "group", "public", "owner", "signed-in", "anyone", "nobody", "own-folder",
            "image/png", "image/*", "*/*", "png", "2048", "0", "-1", "", "\"", "#",
        ]
        for _ in 0..<400 {
            var text = "bucket b\n"
            for _ in 0..<Int.random(in: 0...9, using: &rng) {
                let n = Int.random(in: 0...2, using: &rng)
                let words = [keys.randomElement(using: &rng)!] + (0..<n).map { _ in values.randomElement(using: &rng)! }
                text += (Bool.random(using: &rng) ? "  " : "") + words.joined(separator: " ") + "\n"
            }
            do {
                let b = try AccessFile.parse(text, path: "f.rls").buckets.first
                XCTAssertNotNil(b?.read)
                XCTAssertFalse([b?.upload, b?.overwrite, b?.move, b?.delete].contains { $0 == nil }, text)
            } catch {
                let line = "\(error)"
                XCTAssertTrue(line.hasPrefix("f.rls:"), line)
                XCTAssertFalse(line.contains("\n"), line)
            }
        }
    }
}
