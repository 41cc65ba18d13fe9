"""Gin Rummy (Gin Rommé): the meld solver, the round and match rules of spec/gin.md, records and bots."""
