"""Chapter 04: the Tactical Reactions, who may take each and what each costs, the Trigger
Windows A and B a move or a charge opens, what a reaction does, and the refused flank."""
