-- rlskit stand-in for pgmq: queues as plain tables pgmq.q_<name> and archives pgmq.a_<name>,
-- with pgmq's functions for them. Visibility timeouts work as in pgmq. As pgmq 1.5: messages
-- carry optional headers (jsonb).

create type pgmq.message_record as (msg_id bigint, read_ct integer, enqueued_at timestamptz, vt timestamptz, message jsonb,
  headers jsonb);
create type pgmq.queue_record as (queue_name character varying, is_partitioned boolean, is_unlogged boolean, created_at timestamptz);

create table pgmq.meta (
  queue_name     character varying primary key,
  is_partitioned boolean not null default false,
  is_unlogged    boolean not null default false,
  created_at     timestamptz not null default pg_catalog.now()
);

create function pgmq._table(queue_name text, prefix text) returns text
language plpgsql immutable as $$
begin
  if queue_name !~ '^[A-Za-z0-9_]{1,47}$' then
    raise exception 'queue name "%" is not valid: use at most 47 letters, digits or underscores', queue_name
      using errcode = '22023';
  end if;
  return pg_catalog.format('pgmq.%I', prefix || '_' || pg_catalog.lower(queue_name));
end
$$;

create function pgmq.create(queue_name text) returns void
language plpgsql volatile as $$
begin
  execute pg_catalog.format('create table if not exists %s (msg_id bigint generated always as identity primary key, '
    || 'read_ct integer not null default 0, enqueued_at timestamptz not null default pg_catalog.now(), '
    || 'vt timestamptz not null, message jsonb, headers jsonb)', pgmq._table(queue_name, 'q'));
  execute pg_catalog.format('create table if not exists %s (msg_id bigint primary key, read_ct integer not null default 0, '
    || 'enqueued_at timestamptz not null, archived_at timestamptz not null default pg_catalog.now(), vt timestamptz not null, '
    || 'message jsonb, headers jsonb)', pgmq._table(queue_name, 'a'));
  insert into pgmq.meta (queue_name) values (pg_catalog.lower(queue_name)) on conflict do nothing;
end
$$;

create function pgmq.create_unlogged(queue_name text) returns void
language sql volatile as $$ select pgmq.create(queue_name) $$;

create function pgmq.send_batch(queue_name text, msgs jsonb[], headers jsonb[], delay integer default 0)
returns setof bigint
language plpgsql volatile as $$
begin
  return query execute pg_catalog.format('insert into %s (vt, message, headers) '
    || 'select pg_catalog.now() + pg_catalog.make_interval(secs => $1), m.msg, m.headers '
    || 'from unnest($2, $3) as m (msg, headers) where m.msg is not null returning msg_id', pgmq._table(queue_name, 'q'))
    using delay, msgs, headers;
end
$$;

create function pgmq.send_batch(queue_name text, msgs jsonb[], delay integer default 0) returns setof bigint
language sql volatile as $$ select pgmq.send_batch(queue_name, msgs, null::jsonb[], delay) $$;

create function pgmq.send(queue_name text, msg jsonb, headers jsonb, delay integer default 0) returns setof bigint
language sql volatile as $$ select pgmq.send_batch(queue_name, array[msg], array[headers], delay) $$;

create function pgmq.send(queue_name text, msg jsonb, delay integer default 0) returns setof bigint
language sql volatile as $$ select pgmq.send_batch(queue_name, array[msg], null::jsonb[], delay) $$;

create function pgmq.read(queue_name text, vt integer, qty integer) returns setof pgmq.message_record
language plpgsql volatile as $$
begin
  return query execute pg_catalog.format('with picked as (select msg_id from %1$s where vt <= pg_catalog.clock_timestamp() '
    || 'order by msg_id limit $2 for update skip locked) '
    || 'update %1$s as q set vt = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => $1), read_ct = q.read_ct + 1 '
    || 'from picked where q.msg_id = picked.msg_id returning q.msg_id, q.read_ct, q.enqueued_at, q.vt, q.message, q.headers',
    pgmq._table(queue_name, 'q')) using vt, qty;
end
$$;

create function pgmq.pop(queue_name text) returns setof pgmq.message_record
language plpgsql volatile as $$
begin
  return query execute pg_catalog.format('with picked as (select msg_id from %1$s where vt <= pg_catalog.clock_timestamp() '
    || 'order by msg_id limit 1 for update skip locked) delete from %1$s as q using picked where q.msg_id = picked.msg_id '
    || 'returning q.msg_id, q.read_ct, q.enqueued_at, q.vt, q.message, q.headers', pgmq._table(queue_name, 'q'));
end
$$;

create function pgmq.delete(queue_name text, msg_id bigint) returns boolean
language plpgsql volatile as $$
declare
  n integer;
begin
  execute pg_catalog.format('delete from %s where msg_id = $1', pgmq._table(queue_name, 'q')) using msg_id;
  get diagnostics n = row_count;
  return n > 0;
end
$$;

create function pgmq.archive(queue_name text, msg_id bigint) returns boolean
language plpgsql volatile as $$
declare
  n integer;
begin
  execute pg_catalog.format('with moved as (delete from %s where msg_id = $1 returning *) '
    || 'insert into %s (msg_id, read_ct, enqueued_at, vt, message, headers) '
    || 'select msg_id, read_ct, enqueued_at, vt, message, headers from moved',
    pgmq._table(queue_name, 'q'), pgmq._table(queue_name, 'a')) using msg_id;
  get diagnostics n = row_count;
  return n > 0;
end
$$;

create function pgmq.set_vt(queue_name text, msg_id bigint, vt integer) returns setof pgmq.message_record
language plpgsql volatile as $$
begin
  return query execute pg_catalog.format('update %s set vt = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => $2) '
    || 'where msg_id = $1 returning msg_id, read_ct, enqueued_at, vt, message, headers', pgmq._table(queue_name, 'q'))
    using msg_id, vt;
end
$$;

create function pgmq.purge_queue(queue_name text) returns bigint
language plpgsql volatile as $$
declare
  n bigint;
begin
  execute pg_catalog.format('delete from %s', pgmq._table(queue_name, 'q'));
  get diagnostics n = row_count;
  return n;
end
$$;

create function pgmq.drop_queue(queue_name text) returns boolean
language plpgsql volatile as $$
begin
  execute pg_catalog.format('drop table if exists %s, %s', pgmq._table(queue_name, 'q'), pgmq._table(queue_name, 'a'));
  delete from pgmq.meta as m where m.queue_name = pg_catalog.lower(drop_queue.queue_name);
  return found;
end
$$;

create function pgmq.list_queues() returns setof pgmq.queue_record
language sql stable as $$ select queue_name, is_partitioned, is_unlogged, created_at from pgmq.meta order by queue_name $$;
