"""What each side sees: the enemy units a side spots now (chapter 03's sight rules), and
what it knows of those it saw before."""
