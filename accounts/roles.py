"""Staff roles are Django groups; their permissions are granted by `accounts_roles_sync`."""

OPERATOR = "operator"
AUDITOR = "auditor"
SUPPORT = "support"
STAFF_ROLES = (OPERATOR, AUDITOR, SUPPORT)
