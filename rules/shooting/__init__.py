"""Phase 3, ranged combat: a volley measured on the table, its dice and its casualties."""
