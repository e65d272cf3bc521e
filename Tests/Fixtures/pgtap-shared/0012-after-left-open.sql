select plan(1);
select hasnt_table('public', 'left_open', 'gone after the file that left its transaction open');
