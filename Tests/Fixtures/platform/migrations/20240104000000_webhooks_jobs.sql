-- A database webhook (as the dashboard writes it), a nightly job, a queue, a checked
-- JSON column and Realtime Authorization.
create table public.orders (
  id       bigint primary key generated always as identity,
  buyer_id uuid not null references auth.users (id),
  details  jsonb not null check (extensions.jsonb_matches_schema(
    '{"type": "object", "required": ["sku", "qty"], "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}}}',
    details))
);
alter table public.orders enable row level security;
grant select, insert on public.orders to authenticated;
create policy "buyers insert orders" on public.orders for insert to authenticated
  with check ((select auth.uid()) = buyer_id);
create policy "buyers read orders" on public.orders for select to authenticated
  using ((select auth.uid()) = buyer_id);

create trigger "order-created" after insert on public.orders
  for each row execute function supabase_functions.http_request(
    'https://example.test/functions/v1/order-created', 'POST', '{"Content-Type":"application/json"}', '{}', '5000');

select cron.schedule('purge-old-orders', '0 3 * * *', $$delete from public.orders where id < 0$$);
select pgmq.create('emails');

create function public.queue_receipt() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform pgmq.send('emails', jsonb_build_object('order', new.id));
  return new;
end
$$;
revoke execute on function public.queue_receipt() from public, anon, authenticated;
create trigger queue_receipt after insert on public.orders for each row execute function public.queue_receipt();

alter publication supabase_realtime add table public.orders;
create policy "members read their room" on realtime.messages for select to authenticated
  using (realtime.topic() = 'room:' || (select auth.uid())::text);

-- A trusted-language extension registered through pg_tle, as dbdev's install does.
create extension if not exists pg_tle;
select pgtle.install_extension('order_helpers', '1.0', 'helpers for orders', $tle$ select 1 $tle$);
