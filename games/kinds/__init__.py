"""The games the site ships, one registry entry each (``games.registry``), and the base they are made from."""
