import Postgres

/// The buckets `config.toml` declares, created as `supabase db reset` creates them after the
/// seed: inserted, or their settings updated when the bucket exists.
enum ConfigBuckets {
    static func create(_ conn: PostgresConnection, _ buckets: [SupabaseConfig.Bucket], as role: String? = nil) throws
        -> [String]
    {
        guard !buckets.isEmpty else { return [] }
        guard try conn.query("select to_regclass('storage.buckets') is not null as e").rows[0].decode("e") as Bool
        else {
            throw ConfigurationError(
                "config.toml declares buckets (\(buckets.map(\.name).joined(separator: ", "))), but storage.buckets does not exist: let rlskit install the stand-in, or remove [storage.buckets]"
            )
        }
        try conn.transaction { c in
            if let role { try c.query("select set_config('role', $1, true)", [role]) }
            for b in buckets {
                let mimes = b.allowedMimeTypes.map { JSON.array($0.map { .string($0) }).rendered() } ?? ""
                try c.query(
                    """
                    insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
                    values ($1, $1, $2, nullif($3, '')::bigint,
                            (select array_agg(m) from jsonb_array_elements_text(nullif($4, '')::jsonb) m))
                    on conflict (id) do update set public = excluded.public,
                      file_size_limit = excluded.file_size_limit, allowed_mime_types = excluded.allowed_mime_types
                    """, [b.name, b.isPublic, b.fileSizeLimit.map(String.init) ?? "", mimes])
            }
        }
        return buckets.map(\.name)
    }
}
