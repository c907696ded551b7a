"""Chapter 06, the assault: a charge declared, carried to the 4.0" line, through Window B,
to contact, a stall or a halt."""
