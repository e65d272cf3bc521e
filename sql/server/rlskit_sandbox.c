/*
 * rlskit_sandbox: loaded by rlskit's throwaway server only (shared_preload_libraries).
 *
 * The project's SQL is untrusted. It runs as non-superuser roles; this module keeps it from
 * reaching superuser rights, the server's files and programs, or another server:
 *  - no function owned by a non-superuser runs with superuser rights (a trigger, view,
 *    operator, default or cast a project wrote, fired by one of rlskit's own sessions);
 *  - while such a function runs in a session that logged in as a superuser, it cannot
 *    change role or session authorization (it would get the session's superuser back);
 *  - reserved roles and reserved memberships as supautils has them on the platform, and what
 *    supautils runs as its superuser for postgres (role settings, BYPASSRLS on a new role);
 *  - sessions that log in as an API's login role (authenticator, as PostgREST) are rlskit's
 *    harness: outside a project's function they may switch to the roles it seeds and signs up
 *    as (postgres, supabase_auth_admin), which the login role is no member of; inside one, the
 *    platform's memberships alone decide, as there;
 *  - COPY to or from a server file or program, ALTER SYSTEM, LOAD and CREATE TABLESPACE refused
 *    to everyone; the server-file functions (built in, adminpack's, file_fdw's) refused to
 *    everyone; dblink and postgres_fdw never connect.
 * The lists come from rlskit as settings (PGC_POSTMASTER: fixed while the server runs).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/dependency.h"
#include "catalog/indexing.h"
#include "catalog/pg_foreign_data_wrapper.h"
#include "catalog/namespace.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_language.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/plannodes.h"
#include "parser/parsetree.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/varlena.h"

PG_MODULE_MAGIC;

void _PG_init(void);

static char *reserved_roles = NULL;
static char *reserved_memberships = NULL;
static char *blocked_libraries = NULL;
static char *blocked_functions = NULL;
static char *file_libraries = NULL;
static char *definer_role = NULL;
static char *policy_grants = NULL;
static char *allowed_configs = NULL;
static bool admin_writes = false;
static char *harness_logins = NULL;
static char *harness_roles = NULL;

static ProcessUtility_hook_type prev_utility = NULL;
static needs_fmgr_hook_type prev_needs_fmgr = NULL;
static fmgr_hook_type prev_fmgr = NULL;
static object_access_hook_type prev_object_access = NULL;
static ExecutorStart_hook_type prev_executor_start = NULL;
static GucStringCheckHook prev_role_check = NULL;
static GucStringCheckHook prev_session_auth_check = NULL;

/* How many functions of a non-superuser are running in a session that logged in as a superuser. */
static int project_depth = 0;
/* The same in a harness session (one that logged in as a role of rlskit_sandbox.harness_logins). */
static int harness_depth = 0;
/* -1: not known yet; else whether this session logged in as a harness login. */
static int harness_session = -1;

static bool admin_guarded(void);
static void check_admin_write(Oid relid);

#define SANDBOX_HINT "rlskit runs a project's SQL in a sandbox on its throwaway server."

/* Whether `name` is in the comma-separated `list`; a `*` after a name in the list sets *starred. */
static bool
listed(const char *list, const char *name, bool *starred)
{
	char	   *copy;
	List	   *items;
	ListCell   *lc;
	bool		found = false;

	if (starred)
		*starred = false;
	if (list == NULL || name == NULL || *list == '\0')
		return false;
	copy = pstrdup(list);
	if (!SplitIdentifierString(copy, ',', &items))
		return false;
	foreach(lc, items)
	{
		char	   *item = (char *) lfirst(lc);
		size_t		n = strlen(item);
		bool		star = n > 0 && item[n - 1] == '*';

		if (star ? (strlen(name) == n - 1 && strncmp(item, name, n - 1) == 0) : strcmp(item, name) == 0)
		{
			found = true;
			if (starred)
				*starred = star;
			break;
		}
	}
	list_free(items);
	pfree(copy);
	return found;
}

static bool
logged_in_as_harness(void)
{
	if (harness_session < 0 && OidIsValid(GetAuthenticatedUserId()) && IsTransactionState())
	{
		char	   *name = GetUserNameFromId(GetAuthenticatedUserId(), true);

		harness_session = name != NULL && !superuser_arg(GetAuthenticatedUserId())
			&& listed(harness_logins, name, NULL);
	}
	return harness_session == 1;
}

static bool
logged_in_as_superuser(void)
{
	return OidIsValid(GetAuthenticatedUserId()) && superuser_arg(GetAuthenticatedUserId());
}

static void
reserved_role_error(const char *role)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("\"%s\" is a reserved role, only superusers can modify it", role)));
}

static void
check_reserved_role(const char *role)
{
	if (listed(reserved_roles, role, NULL))
		reserved_role_error(role);
}

static void
check_reserved_membership(const char *role)
{
	if (listed(reserved_memberships, role, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("\"%s\" role memberships are reserved, only superusers can grant them", role)));
}

static const char *
rolespec_name(RoleSpec *spec)
{
	switch (spec->roletype)
	{
		case ROLESPEC_CSTRING:
			return spec->rolename;
		case ROLESPEC_CURRENT_USER:
		case ROLESPEC_CURRENT_ROLE:
			return GetUserNameFromId(GetUserId(), true);
		case ROLESPEC_SESSION_USER:
			return GetUserNameFromId(GetSessionUserId(), true);
		default:
			return NULL;
	}
}

static const char *
node_role_name(Node *n)
{
	if (IsA(n, RoleSpec))
		return rolespec_name((RoleSpec *) n);
	if (IsA(n, AccessPriv))
		return ((AccessPriv *) n)->priv_name;
	if (IsA(n, String))
		return strVal(n);
	return NULL;
}

/* A reserved role receives roles only where starred (authenticator*, anon*, …). */
static void
check_grantees(List *grantees)
{
	ListCell   *lc;

	foreach(lc, grantees)
	{
		const char *name = node_role_name((Node *) lfirst(lc));
		bool		starred = false;

		if (name && listed(reserved_roles, name, &starred) && !starred)
			reserved_role_error(name);
	}
}

/* No reserved membership taken away, nor a reserved role's membership in another. */
static void
check_revoke(List *granted, List *grantees)
{
	ListCell   *lc;
	ListCell   *lg;

	foreach(lc, granted)
	{
		const char *role = node_role_name((Node *) lfirst(lc));

		if (role == NULL)
			continue;
		if (listed(reserved_memberships, role, NULL))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("\"%s\" role memberships are reserved, only superusers can change them", role)));
		if (!listed(reserved_roles, role, NULL))
			continue;
		foreach(lg, grantees)
		{
			const char *member = node_role_name((Node *) lfirst(lg));

			if (member && listed(reserved_roles, member, NULL))
				reserved_role_error(member);
		}
	}
}

static void
check_role_list(List *roles, bool membership)
{
	ListCell   *lc;

	foreach(lc, roles)
	{
		Node	   *n = (Node *) lfirst(lc);
		const char *name = NULL;

		if (IsA(n, RoleSpec))
			name = rolespec_name((RoleSpec *) n);
		else if (IsA(n, AccessPriv))
			name = ((AccessPriv *) n)->priv_name;
		if (name == NULL)
			continue;
		if (membership)
			check_reserved_membership(name);
		else
			check_reserved_role(name);
	}
}

static void
sandbox_error(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("%s is not allowed on rlskit's throwaway server", what),
			 errhint(SANDBOX_HINT)));
}

static void
check_role_change(const char *name)
{
	if (project_depth > 0 && name != NULL
		&& (pg_strcasecmp(name, "role") == 0 || pg_strcasecmp(name, "session_authorization") == 0))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("a project's function cannot change %s in one of rlskit's own sessions", name),
				 errhint(SANDBOX_HINT)));
}

/*
 * Settings stored on a database or role apply to rlskit's own sessions too: who they run as,
 * whether triggers fire, what libraries load.
 */
static void
check_stored_setting(VariableSetStmt *v)
{
	static const char *const refused[] = {"role", "session_authorization", "session_replication_role",
	"local_preload_libraries", "session_preload_libraries", NULL};

	if (v == NULL || v->name == NULL)
		return;
	for (int i = 0; refused[i]; i++)
		if (pg_strcasecmp(v->name, refused[i]) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("storing %s on a database or role is not allowed on rlskit's throwaway server", v->name),
					 errhint(SANDBOX_HINT)));
}

/*
 * A trusted extension's script runs as a superuser, so PostgreSQL lets its objects go into any
 * schema: never into rlskit's ledger or the system's. (The platform's own schemas, such as
 * pgsodium or graphql, stay allowed: a `db pull` dump names them.)
 */
static void
check_extension_schema(CreateExtensionStmt *c)
{
	static const char *const closed[] = {"rlskit", "pg_catalog", "pg_toast", "information_schema", NULL};
	ListCell   *lc;

	/* `if not exists` of one already there does nothing; pg_cron always lands in pg_catalog. */
	if ((c->if_not_exists && OidIsValid(get_extension_oid(c->extname, true))) || strcmp(c->extname, "pg_cron") == 0)
		return;
	foreach(lc, c->options)
	{
		DefElem    *d = (DefElem *) lfirst(lc);

		if (strcmp(d->defname, "schema") == 0)
		{
			char	   *schema = defGetString(d);

			for (int i = 0; closed[i]; i++)
				if (strcmp(schema, closed[i]) == 0)
					ereport(ERROR,
							(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
							 errmsg("permission denied for schema %s", schema)));
		}
	}
}

/* Statements as a non-superuser that supautils refuses, and statements nobody may run here. */
static void
check_statement(Node *stmt)
{
	bool		super = superuser();

	switch (nodeTag(stmt))
	{
		case T_CopyStmt:
			if (((CopyStmt *) stmt)->filename != NULL || ((CopyStmt *) stmt)->is_program)
				sandbox_error(((CopyStmt *) stmt)->is_program ? "COPY to or from a program"
							  : "COPY to or from a server file");
			if (((CopyStmt *) stmt)->is_from && ((CopyStmt *) stmt)->relation && admin_guarded())
				check_admin_write(RangeVarGetRelid(((CopyStmt *) stmt)->relation, NoLock, false));
			return;
		case T_AlterSystemStmt:
			sandbox_error("ALTER SYSTEM");
			return;
		case T_LoadStmt:
			sandbox_error("LOAD");
			return;
		case T_CreateTableSpaceStmt:
			sandbox_error("CREATE TABLESPACE");
			return;
		case T_VariableSetStmt:
			{
				VariableSetStmt *v = (VariableSetStmt *) stmt;

				if (project_depth > 0 && v->kind == VAR_RESET_ALL)
					check_role_change("role");
				if (v->kind == VAR_RESET || v->kind == VAR_SET_DEFAULT)
					check_role_change(v->name);
				return;
			}
		case T_DiscardStmt:
			if (((DiscardStmt *) stmt)->target == DISCARD_ALL)
				check_role_change("session_authorization");
			return;
		case T_TruncateStmt:
			if (admin_guarded())
			{
				ListCell   *lc;

				foreach(lc, ((TruncateStmt *) stmt)->relations)
					check_admin_write(RangeVarGetRelid((RangeVar *) lfirst(lc), NoLock, false));
			}
			return;
		default:
			break;
	}
	if (super)
		return;
	switch (nodeTag(stmt))
	{
		case T_GrantRoleStmt:
			{
				GrantRoleStmt *g = (GrantRoleStmt *) stmt;

				/*
				 * Granting roles to a starred reserved role (grant app_role to authenticator) is
				 * allowed, as there; nothing to rlskit's own or another reserved role, and no
				 * reserved membership (or a reserved role's in another) taken away.
				 */
				if (g->is_grant)
					check_role_list(g->granted_roles, true);
				else
					check_revoke(g->granted_roles, g->grantee_roles);
				check_grantees(g->grantee_roles);
				break;
			}
		case T_CreateRoleStmt:
			{
				CreateRoleStmt *c = (CreateRoleStmt *) stmt;
				ListCell   *lc;

				if (get_role_oid(c->role, true) == InvalidOid)
					check_reserved_role(c->role);
				foreach(lc, c->options)
				{
					DefElem    *d = (DefElem *) lfirst(lc);

					if (strcmp(d->defname, "addroleto") == 0)
						check_role_list((List *) d->arg, true);
					else if (strcmp(d->defname, "rolemembers") == 0 || strcmp(d->defname, "adminmembers") == 0)
						/* The new role gets members: its memberships are granted. */
						check_reserved_membership(c->role);
				}
				break;
			}
		case T_AlterRoleStmt:
			{
				AlterRoleStmt *a = (AlterRoleStmt *) stmt;
				const char *name = rolespec_name(a->role);
				ListCell   *lc;

				if (name != NULL)
				{
					bool		members = false;

					foreach(lc, a->options)
						if (strcmp(((DefElem *) lfirst(lc))->defname, "rolemembers") == 0)
							members = true;
					/* ALTER GROUP name ADD|DROP USER ...: memberships in name granted or taken away. */
					if (members)
					{
						foreach(lc, a->options)
						{
							DefElem    *d = (DefElem *) lfirst(lc);

							if (strcmp(d->defname, "rolemembers") != 0)
								continue;
							if (a->action > 0)
							{
								check_reserved_membership(name);
								check_grantees((List *) d->arg);
							}
							else
								check_revoke(list_make1(makeString(pstrdup(name))), (List *) d->arg);
						}
					}
					else
						check_reserved_role(name);
				}
				break;
			}
		case T_AlterDatabaseSetStmt:
			check_stored_setting(((AlterDatabaseSetStmt *) stmt)->setstmt);
			break;
		case T_CreateExtensionStmt:
			check_extension_schema((CreateExtensionStmt *) stmt);
			break;
		case T_AlterRoleSetStmt:
			{
				AlterRoleSetStmt *a = (AlterRoleSetStmt *) stmt;
				const char *name = a->role ? rolespec_name(a->role) : NULL;
				bool		starred = false;

				check_stored_setting(a->setstmt);
				/* A starred reserved role (authenticator*) may be given settings, as supautils allows. */
				if (name != NULL && listed(reserved_roles, name, &starred) && !starred)
					reserved_role_error(name);
				break;
			}
		case T_DropRoleStmt:
			check_role_list(((DropRoleStmt *) stmt)->roles, false);
			break;
		case T_RenameStmt:
			{
				RenameStmt *r = (RenameStmt *) stmt;

				if (r->renameType == OBJECT_ROLE)
				{
					check_reserved_role(r->subname);
					check_reserved_role(r->newname);
				}
				break;
			}
		case T_CommentStmt:
			if (((CommentStmt *) stmt)->objtype == OBJECT_ROLE)
				check_reserved_role(strVal(((CommentStmt *) stmt)->object));
			break;
		case T_SecLabelStmt:
			if (((SecLabelStmt *) stmt)->objtype == OBJECT_ROLE)
				check_reserved_role(strVal(((SecLabelStmt *) stmt)->object));
			break;
		case T_DropOwnedStmt:
			check_role_list(((DropOwnedStmt *) stmt)->roles, false);
			break;
		case T_ReassignOwnedStmt:
			check_role_list(((ReassignOwnedStmt *) stmt)->roles, false);
			break;
		default:
			break;
	}
}

/* Whether the current role is postgres, supautils' privileged_role on the platform. */
static bool
privileged_user(void)
{
	char	   *user = GetUserNameFromId(GetUserId(), true);

	return user != NULL && strcmp(user, "postgres") == 0;
}

/* Whether a setting is in supautils' privileged_role_allowed_configs (`pgrst.*`: a prefix). */
static bool
config_allowed(const char *name)
{
	char	   *copy;
	List	   *items;
	ListCell   *lc;
	bool		found = false;

	if (name == NULL || allowed_configs == NULL || *allowed_configs == '\0')
		return false;
	copy = pstrdup(allowed_configs);
	if (!SplitIdentifierString(copy, ',', &items))
		return false;
	foreach(lc, items)
	{
		char	   *item = (char *) lfirst(lc);
		size_t		n = strlen(item);

		if (n > 0 && item[n - 1] == '*' ? pg_strncasecmp(name, item, n - 1) == 0 : pg_strcasecmp(name, item) == 0)
		{
			found = true;
			break;
		}
	}
	list_free(items);
	pfree(copy);
	return found;
}

/* A role the statement may touch with supautils' superuser: one that exists and is no superuser. */
static bool
ordinary_role(const char *name)
{
	Oid			role = name ? get_role_oid(name, true) : InvalidOid;

	return OidIsValid(role) && !superuser_arg(role);
}

/* Whether every role named in `roles` (RoleSpecs) is an ordinary role. */
static bool
ordinary_roles(List *roles)
{
	ListCell   *lc;

	foreach(lc, roles)
		if (!ordinary_role(node_role_name((Node *) lfirst(lc))))
			return false;
	return true;
}

static void
superuser_attribute_error(const char *action)
{
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("permission denied to %s role", action),
			 errdetail("Only roles with the %s attribute may %s roles with the %s attribute.", "SUPERUSER", action,
					   "SUPERUSER")));
}

/*
 * What supautils runs as its superuser when postgres (its privileged_role) asks, on PostgreSQL 15:
 *  - `alter role x set <setting>` for the settings of privileged_role_allowed_configs
 *    (`alter role authenticator set pgrst.db_aggregates_enabled = 'true'`): PostgreSQL lets
 *    only superusers store a setting it does not know yet;
 *  - `create role` / `create user`, so BYPASSRLS and REPLICATION may be given
 *    (`create user prisma with password '…' bypassrls createdb`, Supabase's Prisma guide);
 *  - `alter role` of a role other than postgres, for the same attributes.
 * SUPERUSER stays refused, with supautils' messages. Here only ordinary (non-superuser) roles are
 * touched, and nothing of the project runs while the statement does.
 */
static bool
elevated_role_statement(Node *stmt)
{
	ListCell   *lc;

	if (superuser() || !privileged_user())
		return false;
	switch (nodeTag(stmt))
	{
		case T_AlterRoleSetStmt:
			{
				AlterRoleSetStmt *a = (AlterRoleSetStmt *) stmt;

				if (a->role == NULL || a->setstmt == NULL || !config_allowed(a->setstmt->name))
					return false;
				return ordinary_role(rolespec_name(a->role));
			}
		case T_CreateRoleStmt:
			{
				CreateRoleStmt *c = (CreateRoleStmt *) stmt;

				/* One that exists fails with PostgreSQL's own error, as supautils lets it. */
				if (OidIsValid(get_role_oid(c->role, true)))
					return false;
				foreach(lc, c->options)
				{
					DefElem    *d = (DefElem *) lfirst(lc);

					if (strcmp(d->defname, "superuser") == 0 && defGetBoolean(d))
						superuser_attribute_error("create");
					if ((strcmp(d->defname, "addroleto") == 0 || strcmp(d->defname, "rolemembers") == 0
						 || strcmp(d->defname, "adminmembers") == 0) && !ordinary_roles((List *) d->arg))
						return false;
				}
				return true;
			}
		case T_AlterRoleStmt:
			{
				AlterRoleStmt *a = (AlterRoleStmt *) stmt;
				const char *name = rolespec_name(a->role);

				foreach(lc, a->options)
				{
					DefElem    *d = (DefElem *) lfirst(lc);

					/* ALTER GROUP … ADD|DROP USER: memberships, PostgreSQL's own rules. */
					if (strcmp(d->defname, "rolemembers") == 0)
						return false;
				}
				if (name != NULL && strcmp(name, "postgres") == 0)
					ereport(ERROR,
							(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
							 errmsg("permission denied to alter role"),
							 errdetail("Only superusers can alter privileged roles.")));
				foreach(lc, a->options)
				{
					DefElem    *d = (DefElem *) lfirst(lc);

					if (strcmp(d->defname, "superuser") == 0)
						superuser_attribute_error("alter");
				}
				return ordinary_role(name);
			}
		case T_CreateFdwStmt:
			return true;
		default:
			return false;
	}
}

/*
 * supautils makes postgres the owner of a foreign-data wrapper it created for it. PostgreSQL
 * wants a superuser there (ALTER … OWNER TO refuses another): the catalog row changes directly,
 * as nothing has been granted on the new wrapper yet.
 */
static void
give_fdw_to(const char *name, Oid owner)
{
	Relation	rel = table_open(ForeignDataWrapperRelationId, RowExclusiveLock);
	HeapTuple	tup = SearchSysCacheCopy1(FOREIGNDATAWRAPPERNAME, CStringGetDatum(name));
	Form_pg_foreign_data_wrapper form;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "rlskit_sandbox: foreign-data wrapper %s not found", name);
	form = (Form_pg_foreign_data_wrapper) GETSTRUCT(tup);
	form->fdwowner = owner;
	CatalogTupleUpdate(rel, &tup->t_self, tup);
	changeDependencyOnOwner(ForeignDataWrapperRelationId, form->oid, owner);
	heap_freetuple(tup);
	table_close(rel, RowExclusiveLock);
	CommandCounterIncrement();
}

/*
 * supautils' policy_grants (and drop_trigger_grants): postgres owns none of the services' tables,
 * yet may create, alter and drop policies on the listed ones and drop their triggers. The
 * statement runs as the superuser, as supautils runs it (a policy's expression may name any
 * schema, which the table's owner may not use); nothing of the project runs while it does (and
 * would be refused, as in rlskit's own sessions).
 */
static bool
granted_table(RangeVar *rv)
{
	Oid			relid;
	bool		granted;
	char	   *schema;
	char	   *qualified;

	if (rv == NULL)
		return false;
	relid = RangeVarGetRelid(rv, NoLock, true);
	if (!OidIsValid(relid))
		return false;
	schema = get_namespace_name(get_rel_namespace(relid));
	if (schema == NULL)
		return false;
	qualified = psprintf("%s.%s", schema, get_rel_name(relid));
	granted = listed(policy_grants, qualified, NULL);
	pfree(qualified);
	return granted;
}

static bool
policy_granted(Node *stmt)
{
	char	   *user;

	if (superuser() || policy_grants == NULL || *policy_grants == '\0')
		return false;
	/* supautils' policy_grants are postgres's (its privileged_role). */
	user = GetUserNameFromId(GetUserId(), true);
	if (user == NULL || strcmp(user, "postgres") != 0)
		return false;
	switch (nodeTag(stmt))
	{
		case T_CreatePolicyStmt:
			return granted_table(((CreatePolicyStmt *) stmt)->table);
		case T_AlterPolicyStmt:
			return granted_table(((AlterPolicyStmt *) stmt)->table);
		case T_DropStmt:
			{
				DropStmt   *d = (DropStmt *) stmt;
				ListCell   *lc;

				if (d->removeType != OBJECT_POLICY && d->removeType != OBJECT_TRIGGER)
					return false;
				/* Every object on a granted table: `drop policy p on t`, `drop trigger x on t`. */
				foreach(lc, d->objects)
				{
					List	   *names = (List *) lfirst(lc);

					if (list_length(names) < 2
						|| !granted_table(makeRangeVarFromNameList(list_truncate(list_copy(names),
																				 list_length(names) - 1))))
						return false;
				}
				return d->objects != NIL;
			}
		default:
			return false;
	}
}

static void
run_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
			ProcessUtilityContext context, ParamListInfo params, QueryEnvironment *queryEnv,
			DestReceiver *dest, QueryCompletion *qc)
{
	if (prev_utility)
		prev_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
}

static void
sandbox_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
				ProcessUtilityContext context, ParamListInfo params, QueryEnvironment *queryEnv,
				DestReceiver *dest, QueryCompletion *qc)
{
	check_statement(pstmt->utilityStmt);
	if (elevated_role_statement(pstmt->utilityStmt) || policy_granted(pstmt->utilityStmt))
	{
		Oid			user;
		int			sec;

		GetUserIdAndSecContext(&user, &sec);
		SetUserIdAndSecContext(BOOTSTRAP_SUPERUSERID, sec | SECURITY_LOCAL_USERID_CHANGE);
		PG_TRY();
		{
			run_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
			if (IsA(pstmt->utilityStmt, CreateFdwStmt))
				give_fdw_to(((CreateFdwStmt *) pstmt->utilityStmt)->fdwname, user);
		}
		PG_FINALLY();
		{
			SetUserIdAndSecContext(user, sec);
		}
		PG_END_TRY();
		return;
	}
	run_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
}

/* The library of a C function, its file name without directory or suffix; NULL otherwise. */
static char *
function_library(HeapTuple tup)
{
	Form_pg_proc p = (Form_pg_proc) GETSTRUCT(tup);
	bool		isnull;
	Datum		d;
	char	   *bin;
	char	   *base;
	char	   *dot;

	if (p->prolang != ClanguageId)
		return NULL;
	d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_probin, &isnull);
	if (isnull)
		return NULL;
	bin = TextDatumGetCString(d);
	base = strrchr(bin, '/');
	base = pstrdup(base ? base + 1 : bin);
	dot = strrchr(base, '.');
	if (dot)
		*dot = '\0';
	pfree(bin);
	return base;
}

/*
 * Whether a C function links to its library's option validator (creating a server, a user
 * mapping or a foreign table runs it; it connects nowhere and reads no file). By the C symbol,
 * not the SQL name: `create function x_validator() … as 'dblink', 'dblink_connect_u'` is no
 * validator.
 */
static bool
symbol_is_validator(HeapTuple tup)
{
	bool		isnull;
	Datum		d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
	char	   *symbol;
	size_t		n;
	bool		result;

	if (isnull)
		return false;
	symbol = TextDatumGetCString(d);
	n = strlen(symbol);
	result = n > 10 && strcmp(symbol + n - 10, "_validator") == 0;
	pfree(symbol);
	return result;
}

/*
 * 0: no hook; 1: a project's function; 2: a function that would connect to another server;
 * 3: a superuser's SECURITY DEFINER function (not an event trigger's), run in a project's
 * session as the definer role instead: the platform's services are not superusers, and a
 * superuser writing a table the project can put triggers or defaults on would run them;
 * 4: a C function of a library that reads or writes the server's files (adminpack, file_fdw),
 * whatever its name: superusers may create them, and the sandbox's own sessions are superusers;
 * 5: the wrappers stand-in's FDW handler (an internal function returning fdw_handler).
 */
static int
function_kind(Oid fn, char **name)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn));
	int			kind = 0;

	if (!HeapTupleIsValid(tup))
		return 0;
	{
		Form_pg_proc p = (Form_pg_proc) GETSTRUCT(tup);
		char	   *lib = function_library(tup);
		bool		validator = lib != NULL && symbol_is_validator(tup);

		if (p->prolang == INTERNALlanguageId && p->prorettype == FDW_HANDLEROID
			&& strcmp(NameStr(p->proname), "fdw_handler_in") != 0)
			kind = 5;
		else if (lib != NULL && listed(blocked_libraries, lib, NULL) && !validator)
			kind = 2;
		else if (lib != NULL && listed(file_libraries, lib, NULL) && !validator)
			kind = 4;
		else if (!superuser_arg(p->proowner))
			kind = 1;
		else if (p->prosecdef && p->prorettype != EVENT_TRIGGEROID && definer_role && *definer_role)
			kind = 3;
		if (name)
			*name = pstrdup(NameStr(p->proname));
	}
	ReleaseSysCache(tup);
	return kind;
}

/* Whether the current user is the definer role (a superuser's SECURITY DEFINER function runs). */
static bool
running_as_definer(void)
{
	Oid			definer = definer_role && *definer_role ? get_role_oid(definer_role, true) : InvalidOid;

	return OidIsValid(definer) && GetUserId() == definer;
}

static bool
sandbox_needs_fmgr(Oid fn)
{
	if (prev_needs_fmgr && prev_needs_fmgr(fn))
		return true;
	return function_kind(fn, NULL) != 0;
}

static void
sandbox_fmgr(FmgrHookEventType event, FmgrInfo *flinfo, Datum *arg)
{
	if (prev_fmgr)
		prev_fmgr(event, flinfo, arg);
	if (event == FHET_START)
	{
		char	   *name = NULL;
		int			kind = function_kind(flinfo->fn_oid, &name);

		if (kind == 2)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("%s() would connect to another server, which is not allowed on rlskit's throwaway server",
							name ? name : "this function"),
					 errhint(SANDBOX_HINT " It works on Supabase.")));
		if (kind == 5)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s() is rlskit's stand-in for a Supabase Wrappers handler: foreign tables are declared on rlskit's throwaway server, never queried",
							name ? name : "this function"),
					 errhint("Keep queries on foreign tables out of the tests rlskit runs, or run them against a Supabase database (--database-url).")));
		if (kind == 4)
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("%s() reads or writes the server's files, which is not allowed on rlskit's throwaway server",
							name ? name : "this function"),
					 errhint(SANDBOX_HINT)));
		if (kind == 1 && superuser())
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("function %s() belongs to a project role and would run with superuser rights",
							name ? name : "?"),
					 errdetail("rlskit never runs a project's code as a superuser; it was called by rlskit's own session."),
					 errhint(SANDBOX_HINT)));
		/*
		 * Inside a superuser's SECURITY DEFINER function run as the definer role: that role has
		 * the services' memberships (their tables' owners), which postgres has not. A project's
		 * code reached from there (a cast to json of its type, a schema net of its own) would
		 * get them.
		 */
		if (kind == 1 && running_as_definer())
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("function %s() belongs to a project role and would run as %s, with the platform services' rights",
							name ? name : "?", definer_role),
					 errdetail("It was reached from a superuser's SECURITY DEFINER function (as Supabase's own functions are), which rlskit runs as %s.",
							   definer_role),
					 errhint(SANDBOX_HINT)));
		if (kind == 3 && !logged_in_as_superuser())
		{
			Oid			definer = get_role_oid(definer_role, true);
			Oid			user;
			int			sec;

			if (!OidIsValid(definer))
				ereport(ERROR, (errmsg("rlskit_sandbox: the definer role %s does not exist", definer_role)));
			/* fmgr_security_definer restores the caller when the function ends. */
			GetUserIdAndSecContext(&user, &sec);
			SetUserIdAndSecContext(definer, sec | SECURITY_LOCAL_USERID_CHANGE);
		}
		if (kind == 1 && logged_in_as_superuser())
		{
			project_depth++;
			*arg = (Datum) 1;
		}
		else if (kind == 1 && logged_in_as_harness())
		{
			harness_depth++;
			*arg = (Datum) 2;
		}
		else
			*arg = (Datum) 0;
	}
	else if (*arg == (Datum) 1)
	{
		project_depth--;
		*arg = (Datum) 0;
	}
	else if (*arg == (Datum) 2)
	{
		harness_depth--;
		*arg = (Datum) 0;
	}
}

/* Whether `symbol` starts with one of the comma-separated prefixes in `list`. */
static bool
prefixed(const char *list, const char *symbol)
{
	const char *p = list;

	while (p && *p)
	{
		const char *end = strchr(p, ',');
		size_t		n = end ? (size_t) (end - p) : strlen(p);

		if (n > 0 && strncmp(symbol, p, n) == 0)
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

/* Built-in functions that run the SQL text they are given: a superuser must never evaluate them. */
#define SQL_RUNNING_SYMBOLS \
	"query_to_xml,query_to_xmlschema,query_to_xml_and_xmlschema,cursor_to_xml,ts_stat,tsquery_rewrite_query," \
	"table_to_xml,schema_to_xml,database_to_xml"

/*
 * Built-in functions are not seen by the fmgr hook. They are recognised by their C symbol,
 * not their name, so an alias (`language internal as 'be_lo_export'`) is refused too.
 */
static void
sandbox_object_access(ObjectAccessType access, Oid classId, Oid objectId, int subId, void *arg)
{
	HeapTuple	tup;

	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);
	if (access != OAT_FUNCTION_EXECUTE)
		return;
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(objectId));
	if (!HeapTupleIsValid(tup))
		return;
	if (((Form_pg_proc) GETSTRUCT(tup))->prolang == INTERNALlanguageId)
	{
		bool		isnull;
		Datum		d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
		char	   *symbol = isnull ? NULL : TextDatumGetCString(d);
		char	   *name = pstrdup(NameStr(((Form_pg_proc) GETSTRUCT(tup))->proname));

		ReleaseSysCache(tup);
		if (symbol && prefixed(blocked_functions, symbol))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("%s() reads or writes the server's files, which is not allowed on rlskit's throwaway server",
							name),
					 errhint(SANDBOX_HINT)));
		if (symbol && prefixed(SQL_RUNNING_SYMBOLS, symbol) && superuser())
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("%s() would run SQL text with superuser rights, which is not allowed on rlskit's throwaway server",
							name),
					 errhint(SANDBOX_HINT)));
		return;
	}
	ReleaseSysCache(tup);
}

/*
 * rlskit's own superuser sessions write only rlskit's ledger and the catalogs, unless they say
 * they are installing the stand-in (before any project code exists): a table a project can
 * reach may carry its triggers, rules and defaults.
 */
static void
check_admin_write(Oid relid)
{
	Oid			ns = get_rel_namespace(relid);
	char	   *nsname = get_namespace_name(ns);

	if (ns == PG_CATALOG_NAMESPACE || isAnyTempNamespace(ns) || (nsname && strcmp(nsname, "rlskit") == 0))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("rlskit's own session would write %s.%s with superuser rights, where a project's triggers could run",
					nsname ? nsname : "?", get_rel_name(relid)),
			 errhint(SANDBOX_HINT)));
}

static bool
admin_guarded(void)
{
	/* An extension's own script is trusted code, whoever runs it. */
	return !admin_writes && !creating_extension && superuser() && logged_in_as_superuser();
}

static void
sandbox_executor_start(QueryDesc *queryDesc, int eflags)
{
	if (admin_guarded() && !(eflags & EXEC_FLAG_EXPLAIN_ONLY))
	{
		ListCell   *lc;

		foreach(lc, queryDesc->plannedstmt->resultRelations)
			check_admin_write(rt_fetch(lfirst_int(lc), queryDesc->plannedstmt->rtable)->relid);
	}
	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

/* The check hooks of `role` and `session_authorization`: no change while a project's function runs. */
static bool
refuse_change(const char *name)
{
	if (project_depth == 0)
		return false;
	GUC_check_errcode(ERRCODE_INSUFFICIENT_PRIVILEGE);
	GUC_check_errmsg("a project's function cannot change %s in one of rlskit's own sessions", name);
	return true;
}

static bool
admin_writes_check(bool *newval, void **extra, GucSource source)
{
	return !refuse_change("rlskit_sandbox.admin_writes");
}

/* What PostgreSQL's check_role hands its assign hook (role_auth_extra in variable.c). */
typedef struct
{
	Oid			roleid;
	bool		is_superuser;
} sandbox_role_extra;

/*
 * rlskit's harness logs in as authenticator, as PostgREST does, and seeds and signs users up in
 * the same transaction as postgres and supabase_auth_admin: outside a project's function it may
 * switch to those (never to a superuser); everything else is PostgreSQL's membership check.
 */
static bool
harness_switch(char **newval, void **extra)
{
	Oid			role;
	sandbox_role_extra *e;

	if (*newval == NULL || harness_depth > 0 || !IsTransactionState() || !listed(harness_roles, *newval, NULL)
		|| !logged_in_as_harness())
		return false;
	role = get_role_oid(*newval, true);
	if (!OidIsValid(role) || superuser_arg(role))
		return false;
	e = (sandbox_role_extra *) malloc(sizeof(sandbox_role_extra));
	if (e == NULL)
		return false;
	e->roleid = role;
	e->is_superuser = false;
	*extra = (void *) e;
	return true;
}

static bool
role_check(char **newval, void **extra, GucSource source)
{
	if (refuse_change("role"))
		return false;
	if (harness_switch(newval, extra))
		return true;
	return prev_role_check ? prev_role_check(newval, extra, source) : true;
}

static bool
session_auth_check(char **newval, void **extra, GucSource source)
{
	if (refuse_change("session_authorization"))
		return false;
	return prev_session_auth_check ? prev_session_auth_check(newval, extra, source) : true;
}

static struct config_string *
string_option(const char *name)
{
#if PG_VERSION_NUM >= 160000
	struct config_generic *g = find_option(name, false, false, ERROR);

	return (g && g->vartype == PGC_STRING) ? (struct config_string *) g : NULL;
#else
	struct config_generic **vars = get_guc_variables();
	int			n = GetNumConfigOptions();

	for (int i = 0; i < n; i++)
		if (vars[i] && vars[i]->vartype == PGC_STRING && pg_strcasecmp(vars[i]->name, name) == 0)
			return (struct config_string *) vars[i];
	return NULL;
#endif
}

void
_PG_init(void)
{
	struct config_string *role;
	struct config_string *session_auth;

	if (!process_shared_preload_libraries_in_progress)
		ereport(ERROR, (errmsg("rlskit_sandbox must be loaded through shared_preload_libraries")));

	DefineCustomStringVariable("rlskit_sandbox.reserved_roles", "Roles only superusers may change.", NULL,
							   &reserved_roles, "", PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("rlskit_sandbox.reserved_memberships", "Roles only superusers may grant.", NULL,
							   &reserved_memberships, "", PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("rlskit_sandbox.blocked_libraries", "Libraries whose functions connect out.", NULL,
							   &blocked_libraries, "dblink,postgres_fdw", PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("rlskit_sandbox.blocked_functions",
							   "C symbols (prefixes) of built-in functions nobody may call.", NULL,
							   &blocked_functions,
							   "pg_read_file,pg_read_binary_file,pg_stat_file,pg_ls_,be_lo_import,be_lo_export,"
							   "pg_current_logfile",
							   PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("rlskit_sandbox.file_libraries",
							   "Libraries whose functions read or write the server's files.", NULL,
							   &file_libraries, "adminpack,file_fdw", PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("rlskit_sandbox.definer_role",
							   "Role a superuser's SECURITY DEFINER function runs as in a project's session.", NULL,
							   &definer_role, "", PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("rlskit_sandbox.policy_grants",
							   "Tables whose policies (and triggers, to drop) postgres may manage without owning them.", NULL,
							   &policy_grants, "", PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("rlskit_sandbox.allowed_configs",
							   "Settings postgres may store on a role (supautils' privileged_role_allowed_configs).", NULL,
							   &allowed_configs, "pgrst.*", PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("rlskit_sandbox.admin_writes",
							 "This superuser session installs the stand-in and may write its tables.", NULL,
							 &admin_writes, false, PGC_SUSET, 0, admin_writes_check, NULL, NULL);
	DefineCustomStringVariable("rlskit_sandbox.harness_logins",
							   "Login roles of rlskit's harness sessions (the APIs' login roles).", NULL,
							   &harness_logins, "", PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("rlskit_sandbox.harness_roles",
							   "Roles a harness session may switch to outside a project's function.", NULL,
							   &harness_roles, "", PGC_POSTMASTER, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("rlskit_sandbox");

	prev_utility = ProcessUtility_hook;
	ProcessUtility_hook = sandbox_utility;
	prev_needs_fmgr = needs_fmgr_hook;
	needs_fmgr_hook = sandbox_needs_fmgr;
	prev_fmgr = fmgr_hook;
	fmgr_hook = sandbox_fmgr;
	prev_object_access = object_access_hook;
	object_access_hook = sandbox_object_access;
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = sandbox_executor_start;

	role = string_option("role");
	session_auth = string_option("session_authorization");
	if (role == NULL || session_auth == NULL)
		ereport(FATAL, (errmsg("rlskit_sandbox: cannot find the role settings")));
	prev_role_check = role->check_hook;
	role->check_hook = role_check;
	prev_session_auth_check = session_auth->check_hook;
	session_auth->check_hook = session_auth_check;
}
