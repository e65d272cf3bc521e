-- A setup file that fails halfway: what ran before the error stays, the rest never runs.
create table public.setup_before (id int);
insert into public.setup_before values (1);
create table public.setup_broken (id int references public.no_such_table);
create table public.setup_after (id int);
