"""The table (chapter 03): measuring on it (arcs, ranges, flank zones), the ground a
move crosses and how far a unit may go, line of sight over hills, woods and towns."""
