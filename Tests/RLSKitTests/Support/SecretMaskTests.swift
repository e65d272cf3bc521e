import Foundation
@_spi(CLI) import RLSKit
import XCTest

final class SecretMaskTests: XCTestCase {
    static let key = "sb_secret_Zq9+/x7Lm2Pv0Wt4Yr8Nk3Hs6Jd1~ab"

    /// What an API's error body may echo of the key, each hidden; the words around stay.
    func testEveryEchoedFormIsHidden() {
        let key = Self.key
        let b64 = Data(key.utf8).base64EncodedString()
        let echoes = [
            "whole": key,
            "prefix": String(key.prefix(12)),
            "suffix": String(key.suffix(9)),
            "middle": String(key.dropFirst(15).prefix(8)),
            "base64": b64,
            "base64url": b64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: ""),
            // Basic auth: the key after "service:", so its base64 starts off a 3-byte boundary.
            "basic": Data("service:\(key)".utf8).base64EncodedString(),
            "percent": key.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
            "percent lower": key.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!.lowercased(),
            "json": key.replacingOccurrences(of: "/", with: "\\/"),
        ]
        let mask = SecretMask(key)
        for (what, echo) in echoes {
            let body = "HTTP 401 {\"error\":\"invalid key \(echo)\"}"
            let shown = mask.apply(body)
            XCTAssertTrue(shown.hasPrefix("HTTP 401 {\"error\":\"invalid key "), "\(what): \(shown)")
            XCTAssertTrue(shown.hasSuffix("\"}"), "\(what): \(shown)")
            XCTAssertTrue(shown.contains("***"), "\(what): \(shown)")
            // "service:" is the first 12 characters of the Basic value: not the key.
            let skip = what == "basic" ? 12 : 0
            let e = Array(echo)
            for i in stride(from: skip, through: e.count - 8, by: 1) {
                XCTAssertFalse(shown.contains(String(e[i..<(i + 8)])), "\(what): \(String(e[i..<(i + 8)])) in \(shown)")
            }
            let left = shown.count - "HTTP 401 {\"error\":\"invalid key ***\"}".count
            XCTAssertLessThanOrEqual(left, skip, "\(what): \(shown)")
        }
    }

    func testTextWithoutTheKeyIsUnchanged() {
        let mask = SecretMask(Self.key)
        for s in ["HTTP 401 {\"error\":\"Unauthorized\"}", "no answer from 127.0.0.1:5000 within 10 s", ""] {
            XCTAssertEqual(mask.apply(s), s)
        }
        // Fewer than eight characters of it are not the key.
        XCTAssertEqual(mask.apply("sb_secr"), "sb_secr")
        // A short secret is hidden where it occurs whole.
        XCTAssertEqual(SecretMask("k3y").apply("a k3y b"), "a *** b")
    }
}
