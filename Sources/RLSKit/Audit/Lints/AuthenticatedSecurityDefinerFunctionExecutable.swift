extension Lint {
    static let authenticatedSecurityDefinerFunctionExecutable = Lint(
        id: "0029", name: "authenticated_security_definer_function_executable",
        title: "SECURITY DEFINER function callable by authenticated",
        level: .warn, categories: [.security],
        description: """
            A SECURITY DEFINER function in an exposed schema can be executed by authenticated, so every \
            signed-in user can call it as RPC and it runs with its owner's rights, past every policy. \
            That is sometimes the point; then the function must check the caller itself.
            """,
        remediation:
            "Check `auth.uid()` inside the function, or move it out of the exposed schemas, or `revoke execute on function <function> from public, authenticated;`.",
        logic: .swift(needs: [.functions]) { securityDefinerExecutable(role: "authenticated", $0) },
        triggering: [
            .init(
                """
                create function public.promote(target uuid) returns void language sql security definer set search_path = ''
                  as $$ select $$;
                revoke execute on function public.promote(uuid) from public, anon;
                grant execute on function public.promote(uuid) to authenticated;
                """, reports: "function public.promote(uuid)")
        ],
        nonTriggering: [
            """
            create function public.promote(target uuid) returns void language sql security definer set search_path = ''
              as $$ select $$;
            revoke execute on function public.promote(uuid) from public, anon, authenticated;
            grant execute on function public.promote(uuid) to service_role;
            """,
            """
            -- A trigger function cannot be called through the API.
            create function public.touch() returns trigger language plpgsql security definer set search_path = ''
              as $$ begin return new; end $$;
            """,
        ])
}
