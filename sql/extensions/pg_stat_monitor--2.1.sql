-- rlskit stand-in for pg_stat_monitor (the platform ships it; `supabase db pull` dumps of
-- projects that had it re-create it). Its view keeps pg_stat_monitor's main columns and is
-- always empty: the throwaway server collects no query statistics.

create function @extschema@.pg_stat_monitor_version() returns text
language sql immutable as $$ select '2.1.0' $$;

create function @extschema@.pg_stat_monitor_reset() returns void
language sql volatile as $$ select null::void $$;

create view @extschema@.pg_stat_monitor as
select null::bigint as bucket, null::timestamptz as bucket_start_time, null::oid as userid,
       null::text as username, null::oid as dbid, null::text as datname, null::inet as client_ip,
       null::integer as pid, null::bigint as queryid, null::bigint as planid, null::bigint as top_queryid,
       null::text as query, null::text as comments, null::text as application_name, null::text[] as relations,
       null::boolean as toplevel, null::text as cmd_type_text, null::bigint as calls,
       null::double precision as total_exec_time, null::double precision as min_exec_time,
       null::double precision as max_exec_time, null::double precision as mean_exec_time,
       null::double precision as stddev_exec_time, null::bigint as rows, null::bigint as shared_blks_hit,
       null::bigint as shared_blks_read
 where false;

grant select on @extschema@.pg_stat_monitor to public;
