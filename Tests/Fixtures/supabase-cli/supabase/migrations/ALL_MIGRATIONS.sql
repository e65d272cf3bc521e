-- A concatenation kept for reference; the CLI does not run it, and neither does rlskit.
select 1 / 0;
