import Foundation
import Synchronization

/// A loopback HTTP server for tests: records each request line and headers and answers with
/// `status(path)` (nil: never answers, holding the connection open; a 3xx carries `location`)
/// and `body(request)`. Listens on 127.0.0.1, or on ::1 with `ipv6`. One request per
/// connection; stops when the test drops it.
public final class TinyHTTPServer: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [String: String]
    }

    public let port: UInt16
    private let fd: Int32
    private let requests = Mutex<[Request]>([])
    private let status: @Sendable (String) -> Int?
    private let location: String
    private let body: @Sendable (Request) -> String
    private let held = Mutex<[Int32]>([])
    private let ipv6: Bool

    public init(
        ipv6: Bool = false, location: String = "/", status: @escaping @Sendable (String) -> Int? = { _ in 200 },
        body: @escaping @Sendable (Request) -> String = { _ in "{}" }
    ) throws {
        self.status = status
        self.location = location
        self.body = body
        self.ipv6 = ipv6
        let s = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard let bound = ipv6 ? Self.bind6(s) : Self.bind4(s), listen(s, 16) == 0 else {
            close(s)
            throw POSIXError(.EADDRINUSE)
        }
        port = bound
        fd = s
        let thread = Thread { [self] in self.serve() }
        thread.start()
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        for c in held.withLock({ $0 }) { close(c) }
    }

    public var received: [Request] { requests.withLock { $0 } }
    public var url: String { ipv6 ? "http://[::1]:\(port)" : "http://127.0.0.1:\(port)" }

    /// The port bound on 127.0.0.1, nil when binding failed.
    private static func bind4(_ s: Int32) -> UInt16? {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(s, $0, len) == 0 && getsockname(s, $0, &len) == 0
            }
        }
        return ok ? UInt16(bigEndian: addr.sin_port) : nil
    }

    /// The port bound on ::1, nil when binding failed.
    private static func bind6(_ s: Int32) -> UInt16? {
        var addr = sockaddr_in6()
        addr.sin6_family = sa_family_t(AF_INET6)
        addr.sin6_addr = in6addr_loopback
        var len = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let ok = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(s, $0, len) == 0 && getsockname(s, $0, &len) == 0
            }
        }
        return ok ? UInt16(bigEndian: addr.sin6_port) : nil
    }

    private func serve() {
        while true {
            let c = accept(fd, nil, nil)
            if c < 0 { return }
            var data = [UInt8]()
            var buf = [UInt8](repeating: 0, count: 4096)
            while !data.suffix(4).elementsEqual([13, 10, 13, 10]) {
                let n = read(c, &buf, buf.count)
                if n <= 0 { break }
                data += buf[0..<n]
            }
            let lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\r\n")
            let first = lines.first?.split(separator: " ") ?? []
            var headers: [String: String] = [:]
            for l in lines.dropFirst() where l.contains(":") {
                let parts = l.split(separator: ":", maxSplits: 1)
                headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces)
            }
            let path = first.count > 1 ? String(first[1]) : ""
            let request = Request(method: first.first.map(String.init) ?? "", path: path, headers: headers)
            requests.withLock { $0.append(request) }
            guard let code = status(path) else {
                held.withLock { $0.append(c) }
                continue
            }
            let redirect = (300...399).contains(code) ? "Location: \(location)\r\n" : ""
            let text = body(request)
            let response =
                "HTTP/1.1 \(code) X\r\n\(redirect)Content-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n\(text)"
            _ = response.withCString { write(c, $0, strlen($0)) }
            close(c)
        }
    }
}
