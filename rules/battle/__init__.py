"""The battle and its data: the order of battle (sides, brigades, units), the terrain
features, the battle as it stands, the turn's records and the changes an action makes."""
