/// What the Data API's way of running a request adds to a failed check's message.
enum APIChecks {
    /// Why an error happened the way PostgREST would have hit it, or "".
    static func hint(_ observed: Observed) -> String {
        if case .error("25006", _) = observed {
            return
                " — reads run READ ONLY, as PostgREST runs GET requests: a policy or a function it calls writes; make it read only (or move the write out of the read)"
        }
        return ""
    }
}
