import Foundation

/// What the Storage API sets besides role and claims on each request's transaction, as its
/// scope statement does: `request.jwt` (the caller's token), `request.headers` (the HTTP
/// request's headers as JSON, lower-case names), `request.method` and `request.path`. A trigger
/// on storage.objects that reads them (`current_setting('request.headers')::json->>'authorization'`
/// to call an Edge Function as the uploader) finds them, also when the finished object is
/// written as service_role: the Storage API keeps the request's headers then.
extension HarnessActor {
    /// A token carrying the caller's claims, unsigned (rlskit never sends it anywhere).
    var token: String {
        guard kind == .anon || kind == .user || kind == .serviceRole else { return "" }
        func part(_ s: String) -> String {
            Data(s.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return part(#"{"alg":"HS256","typ":"JWT"}"#) + "." + part(claims) + ".rlskit-unsigned"
    }

    /// The headers supabase-js sends the Storage API as this caller (the anon key as `apikey`).
    var storageHeaders: String {
        var h: [(String, JSON)] = [("accept", .string("*/*"))]
        if !token.isEmpty { h.append(("authorization", .string("Bearer " + token))) }
        h.append(("apikey", .string(HarnessActor.anon.token)))
        h.append(("x-client-info", .string("supabase-js/2")))
        return JSON.object(h).rendered(pretty: false)
    }

    /// The method and path (after the gateway strips `/storage/v1`) of a Storage API operation.
    static func storageRoute(_ operation: String) -> (method: String, path: String) {
        switch operation {
        case "storage.object.list": ("POST", "/object/list")
        case "storage.object.move": ("POST", "/object/move")
        case "storage.object.delete": ("DELETE", "/object")
        default: ("POST", "/object")
        }
    }

    /// `set_config` calls (leading ", ") for a Storage API request of `operation` sent by `caller`.
    static func storageRequest(_ operation: String, caller: HarnessActor) -> String {
        let route = storageRoute(operation)
        let sets = [
            ("request.jwt", caller.token), ("request.headers", caller.storageHeaders),
            ("request.method", route.method), ("request.path", route.path),
        ]
        return sets.map { ", set_config(\(SQL.literal($0.0)), \(SQL.literal($0.1)), true)" }.joined()
    }
}
