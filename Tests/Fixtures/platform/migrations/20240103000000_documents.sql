-- Semantic search as in the platform's guides: embeddings, an index, a match function.
create table public.documents (
  id        bigint primary key generated always as identity,
  owner_id  uuid not null references auth.users (id),
  content   text not null,
  embedding extensions.vector(3)
);
alter table public.documents enable row level security;
grant select, insert on public.documents to authenticated;
create policy "owners read documents" on public.documents for select to authenticated
  using ((select auth.uid()) = owner_id);
create policy "owners add documents" on public.documents for insert to authenticated
  with check ((select auth.uid()) = owner_id);

create index on public.documents using hnsw (embedding vector_cosine_ops);
create index documents_l2 on public.documents using hnsw (embedding extensions.vector_l2_ops) with (m = 16, ef_construction = 64);
create index documents_ivf on public.documents using ivfflat (embedding vector_ip_ops) with (lists = 100);

create function public.match_documents(query_embedding extensions.vector(3), match_threshold float, match_count int)
returns table (id bigint, content text, similarity float)
language sql stable set search_path = public, extensions as $$
  select d.id, d.content, 1 - (d.embedding <=> query_embedding) as similarity
  from public.documents d
  where 1 - (d.embedding <=> query_embedding) > match_threshold
  order by d.embedding <=> query_embedding
  limit match_count
$$;
